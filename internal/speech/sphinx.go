package speech

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Sphinx is the offline backend: ffmpeg decodes the recording to 16 kHz mono PCM, and pocketsphinx
// recognises it with the en-us acoustic model, language model and dictionary Debian ships.
type Sphinx struct {
	// FFmpeg and Recognizer are the programs' paths.
	FFmpeg, Recognizer string
	// Model is the directory holding en-us/, en-us.lm.bin and cmudict-en-us.dict.
	Model string
	// MaxSeconds bounds the decoded duration of a recording (DefaultMaxSeconds when zero); a longer
	// one is ErrTooLong, found while decoding rather than after.
	MaxSeconds float64
	// slots bounds how many recognitions run at once: each takes a core for about as long as the
	// recording lasts, and the server has other work.
	slots chan struct{}
}

// DefaultModel is where Debian's pocketsphinx-en-us puts the model.
const DefaultModel = "/usr/share/pocketsphinx/model/en-us"

// FindSphinx returns the offline backend when its programs and model are installed, allowing at most
// parallel recognitions at a time; ok is false otherwise.
func FindSphinx(parallel int) (*Sphinx, bool) {
	ff, err1 := exec.LookPath("ffmpeg")
	ps, err2 := exec.LookPath("pocketsphinx_continuous")
	_, err3 := os.Stat(filepath.Join(DefaultModel, "en-us.lm.bin"))
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, false
	}
	if parallel < 1 {
		parallel = 1
	}
	return &Sphinx{FFmpeg: ff, Recognizer: ps, Model: DefaultModel, slots: make(chan struct{}, parallel)}, true
}

// Transcribe decodes and recognises the recording. Only English is recognised: another language
// hint is ErrLanguage rather than a transcript of nonsense.
func (s *Sphinx) Transcribe(ctx context.Context, path string, format Format, language string) (Result, error) {
	if language != "" && language != "en" {
		return Result{}, fmt.Errorf("%w: the offline recogniser knows English (en) only, not %q", ErrLanguage, language)
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	dir, err := os.MkdirTemp("", pattern(decodePrefix))
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	wav := filepath.Join(dir, "speech.wav")
	duration, err := decode(ctx, s.FFmpeg, path, format, s.MaxSeconds, wav)
	if err != nil {
		return Result{}, err
	}
	rec := exec.CommandContext(ctx, s.Recognizer, "-infile", wav,
		"-hmm", filepath.Join(s.Model, "en-us"), "-lm", filepath.Join(s.Model, "en-us.lm.bin"),
		"-dict", filepath.Join(s.Model, "cmudict-en-us.dict"), "-logfn", os.DevNull)
	out, err := rec.Output()
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("speech: pocketsphinx failed: %w", err)
	}
	// One line per utterance the recogniser found in the recording.
	text := strings.Join(strings.Fields(string(out)), " ")
	return Result{Text: text, Language: "en", Duration: duration}, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
