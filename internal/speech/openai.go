package speech

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// OpenAI is the backend for any OpenAI-compatible /audio/transcriptions endpoint (OpenAI, a local
// whisper server, LocalAI, vLLM).
type OpenAI struct {
	client openai.Client
	model  string
}

// NewOpenAI talks to baseURL (for example https://api.openai.com/v1) with key and model.
func NewOpenAI(baseURL, key, model string, hc *http.Client) *OpenAI {
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Minute}
	}
	if key == "" {
		key = "unused" // local servers take none; the SDK insists on one
	}
	return &OpenAI{model: model, client: openai.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(key),
		option.WithHTTPClient(hc), option.WithMaxRetries(1))}
}

// Transcribe sends the recording and asks for verbose JSON, which carries the language and duration.
func (o *OpenAI) Transcribe(ctx context.Context, path string, format Format, language string) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	params := openai.AudioTranscriptionNewParams{
		// The endpoint reads the format from the part's file name, so it gets the detected one.
		File:           openai.File(f, "audio."+string(format), "application/octet-stream"),
		Model:          openai.AudioModel(o.model),
		ResponseFormat: openai.AudioResponseFormatVerboseJSON,
	}
	if language != "" {
		params.Language = openai.String(language)
	}
	res, err := o.client.Audio.Transcriptions.New(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return Result{}, fmt.Errorf("%w: the transcription service answered %d", ErrUpstream, apiErr.StatusCode)
		}
		return Result{}, fmt.Errorf("%w: %v", ErrUpstream, err)
	}
	out := Result{Text: strings.TrimSpace(res.Text), Language: isoCode(res.Language), Duration: -1}
	if out.Language == "" {
		out.Language = language
	}
	if res.JSON.Duration.Valid() {
		out.Duration = res.Duration
	}
	return out, nil
}

// isoCode maps what servers answer for a language (whisper says "english") to ISO 639-1.
func isoCode(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	if len(l) == 2 {
		return l
	}
	return languageNames[l]
}

var languageNames = map[string]string{
	"english": "en", "german": "de", "french": "fr", "spanish": "es", "italian": "it", "portuguese": "pt",
	"dutch": "nl", "polish": "pl", "russian": "ru", "ukrainian": "uk", "czech": "cs", "swedish": "sv",
	"danish": "da", "norwegian": "no", "finnish": "fi", "turkish": "tr", "greek": "el", "arabic": "ar",
	"hebrew": "he", "hindi": "hi", "japanese": "ja", "korean": "ko", "chinese": "zh", "vietnamese": "vi",
	"indonesian": "id", "thai": "th", "romanian": "ro", "hungarian": "hu", "catalan": "ca",
}
