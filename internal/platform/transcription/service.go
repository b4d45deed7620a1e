// Package transcription implements POST /api/agent/transcription: one recording in, its transcript
// out, through whichever speech backend the server has. The audio is kept in a temporary file only
// while it is transcribed.
package transcription

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/fairshare"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/ratelimit"
	"github.com/loopwork/loopwork/internal/speech"
)

// Deps are what the service needs.
type Deps struct {
	// Backend transcribes; nil means no backend is configured or installed (501).
	Backend speech.Transcriber
	// MaxBytes is the largest recording accepted.
	MaxBytes int64
	// MaxSeconds is the longest decoded recording the backend accepts, named in its 413.
	MaxSeconds int
	// Limiter and PerMinute bound the calls of one organization.
	Limiter   *ratelimit.Limiter
	PerMinute int
	// Slots, when set, are the backend's places shared fairly between organizations: a recording is
	// transcribed once its organization's turn comes, and one organization holds at most its share, so a
	// flood of long recordings from one cannot keep the others waiting (the offline recogniser has few).
	Slots *fairshare.Semaphore[uuid.UUID]
}

// Service implements transcribeAudio of platformapi.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// TranscribeAudio reads the upload into a temporary file, detects its format and transcribes it.
func (s *Service) TranscribeAudio(ctx context.Context, req platformapi.TranscribeAudioRequestObject) (platformapi.TranscribeAudioResponseObject, error) {
	if s.d.Backend == nil {
		return nil, httpx.NewError(http.StatusNotImplemented, "not_implemented",
			"no speech-to-text backend: set LOOPWORK_TRANSCRIPTION_URL, or install the offline recogniser "+
				"(`make speech` in a source checkout: Debian's pocketsphinx, pocketsphinx-en-us and ffmpeg) and restart the server")
	}
	p := auth.MustFromContext(ctx)
	ok, retry, err := s.d.Limiter.Allow(ctx, "transcription:"+p.OrganizationID.String(), s.d.PerMinute, time.Minute)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.TooManyRequests(retry, fmt.Sprintf("more than %d transcriptions a minute in this organization", s.d.PerMinute))
	}
	up, err := receive(req.Body, s.d.MaxBytes)
	if up != nil {
		defer up.remove()
	}
	if err != nil {
		return nil, err
	}
	if s.d.Slots != nil {
		if err := s.d.Slots.Acquire(ctx, p.OrganizationID); err != nil {
			return nil, err
		}
		defer s.d.Slots.Release(p.OrganizationID)
	}
	res, err := s.d.Backend.Transcribe(ctx, up.path, up.format, up.language)
	switch {
	case errors.Is(err, speech.ErrLanguage):
		return nil, httpx.Invalid([]any{"body", "language"}, "value_error", err.Error())
	case errors.Is(err, speech.ErrUndecodable):
		return nil, httpx.Invalid([]any{"body", "audio_file"}, "value_error",
			"the file looks like "+string(up.format)+" but cannot be decoded: "+err.Error())
	case errors.Is(err, speech.ErrTooLong):
		return nil, httpx.NewError(http.StatusRequestEntityTooLarge, "request_too_large",
			"the recording lasts longer than %d seconds once decoded (LOOPWORK_TRANSCRIPTION_MAX_SECONDS)", s.d.MaxSeconds)
	case errors.Is(err, speech.ErrUpstream):
		return nil, httpx.NewError(http.StatusBadGateway, "upstream_unavailable", "%v", err)
	case err != nil:
		return nil, err
	}
	out := platformapi.TranscribeAudio200JSONResponse{Text: res.Text}
	if res.Language != "" {
		out.Language = &res.Language
	}
	if res.Duration >= 0 {
		d := float32(res.Duration)
		out.DurationSeconds = &d
	}
	return out, nil
}
