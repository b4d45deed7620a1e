package transcription

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"regexp"

	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/speech"
)

// upload is a received recording in a temporary file.
type upload struct {
	path     string
	format   speech.Format
	language string
}

func (u *upload) remove() { os.Remove(u.path) }

var languagePattern = regexp.MustCompile(`^[a-z]{2}$`)

// receive reads the form's parts: the recording goes to a temporary file, never wholly into memory,
// and is refused once it passes max; its first bytes decide its format.
func receive(form *multipart.Reader, max int64) (*upload, error) {
	var up *upload
	var language string
	for {
		part, err := form.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return up, tooLargeOr(err, httpx.Invalid([]any{"body"}, "value_error", "the multipart body cannot be read: "+err.Error()))
		}
		switch part.FormName() {
		case "audio_file":
			if up != nil {
				return up, httpx.Invalid([]any{"body", "audio_file"}, "value_error", "send one audio_file, not several")
			}
			up, err = save(part, max)
			if err != nil {
				return up, err
			}
		case "language":
			b, err := io.ReadAll(io.LimitReader(part, 16))
			if err != nil {
				return up, tooLargeOr(err, err)
			}
			language = string(b)
		}
	}
	if up == nil {
		return nil, httpx.Invalid([]any{"body", "audio_file"}, "missing", "audio_file is required")
	}
	if language != "" && !languagePattern.MatchString(language) {
		return up, httpx.Invalid([]any{"body", "language"}, "value_error", fmt.Sprintf("%q is not an ISO 639-1 code such as en", language))
	}
	up.language = language
	return up, nil
}

func save(part *multipart.Part, max int64) (*upload, error) {
	f, err := os.CreateTemp("", speech.UploadPattern())
	if err != nil {
		return nil, err
	}
	up := &upload{path: f.Name()}
	n, err := io.Copy(f, io.LimitReader(part, max+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return up, tooLargeOr(err, err)
	}
	if n > max {
		return up, httpx.NewError(http.StatusRequestEntityTooLarge, "request_too_large",
			"the audio file is larger than %d bytes (LOOPWORK_TRANSCRIPTION_MAX_BYTES)", max)
	}
	if n == 0 {
		return up, httpx.Invalid([]any{"body", "audio_file"}, "value_error", "the audio file is empty")
	}
	head := make([]byte, speech.HeadSize)
	f, err = os.Open(up.path)
	if err != nil {
		return up, err
	}
	k, _ := io.ReadFull(f, head)
	f.Close()
	format, ok := speech.Detect(head[:k], part.FileName(), part.Header.Get("Content-Type"))
	if !ok {
		return up, httpx.NewError(http.StatusUnsupportedMediaType, "unsupported_media_type",
			"the audio file is not MP3, WAV, M4A, OGG, FLAC, AAC, OPUS or WebM (detected from its content)")
	}
	up.format = format
	return up, nil
}

// tooLargeOr passes on the body limit's 413 when that is what stopped the read.
func tooLargeOr(err error, otherwise error) error {
	var e *httpx.Error
	if errors.As(err, &e) && e.Status == http.StatusRequestEntityTooLarge {
		return e
	}
	return otherwise
}
