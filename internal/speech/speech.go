// Package speech turns recorded speech into text behind one small interface, with two backends: an
// OpenAI-compatible /audio/transcriptions endpoint when one is configured, and an offline default built
// from Debian's pocketsphinx (with its en-us model) and ffmpeg, which decodes every accepted format.
package speech

import (
	"context"
	"errors"
	"strings"

	"github.com/loopwork/loopwork/internal/textdist"
)

// Result is a transcript.
type Result struct {
	Text string
	// Language is the ISO 639-1 code of the speech, or empty when unknown.
	Language string
	// Duration is the recording's length in seconds, or negative when unknown.
	Duration float64
}

// Transcriber transcribes one recording held in a file. The file's format has been detected already.
type Transcriber interface {
	Transcribe(ctx context.Context, path string, format Format, language string) (Result, error)
}

// ErrLanguage is returned for a language hint the backend cannot recognise.
var ErrLanguage = errors.New("speech: language not supported by this backend")

// ErrUndecodable is returned for a file that has an accepted format's signature but cannot be decoded.
var ErrUndecodable = errors.New("speech: the recording cannot be decoded")

// ErrUpstream wraps a failure of a remote backend (unreachable, refused, or an error answer).
var ErrUpstream = errors.New("speech: backend unavailable")

// ErrTooLong is returned for a recording that decodes to more than the backend's maximum duration. A few
// kilobytes of compressed silence can decode to hours of audio, so the bound is on what the decoder
// produces, checked while it runs, not on the upload's size.
var ErrTooLong = errors.New("speech: the recording is too long")

// WordErrorRate is the word-level edit distance (substitutions, insertions, deletions) between a
// reference transcript and a hypothesis, divided by the reference's length; words are compared in
// lower case.
func WordErrorRate(reference, hypothesis string) float64 {
	ref := strings.Fields(strings.ToLower(reference))
	hyp := strings.Fields(strings.ToLower(hypothesis))
	if len(ref) == 0 {
		if len(hyp) == 0 {
			return 0
		}
		return 1
	}
	return float64(textdist.Levenshtein(ref, hyp)) / float64(len(ref))
}
