package transcription_test

import (
	"context"
	"mime"
	"mime/multipart"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/fairshare"
	"github.com/loopwork/loopwork/internal/platform/transcription"
	"github.com/loopwork/loopwork/internal/ratelimit"
	"github.com/loopwork/loopwork/internal/speech"
	"github.com/loopwork/loopwork/internal/testkit"
)

// heldBackend is a recogniser whose every recognition lasts until the test lets it end; it tells which
// recording it started on by the language hint, the one thing of the request it is given.
type heldBackend struct {
	started chan string
	release chan struct{}
}

func (h heldBackend) Transcribe(ctx context.Context, _ string, _ speech.Format, language string) (speech.Result, error) {
	h.started <- language
	select {
	case <-h.release:
		return speech.Result{Text: "done"}, nil
	case <-ctx.Done():
		return speech.Result{}, ctx.Err()
	}
}

// TestRecogniserSlotsAreShared: one organization sending many long recordings holds at most its share
// of the recogniser's slots; another organization's recording starts at once in the slot left over,
// however many of the first one's wait.
func TestRecogniserSlotsAreShared(t *testing.T) {
	t.Parallel()
	back := heldBackend{started: make(chan string, 8), release: make(chan struct{})}
	slots := fairshare.New[uuid.UUID](2, 1)
	svc := transcription.New(transcription.Deps{Backend: back, Slots: slots, MaxBytes: 1 << 20,
		Limiter: ratelimit.New(testkit.DB(t)), PerMinute: 100})
	a, b := uuid.New(), uuid.New()
	// The language hint names the organization to the backend: aa for a, bb for b.
	send := func(org uuid.UUID, hint string) <-chan error {
		done := make(chan error, 1)
		go func() {
			ct, body := form(t, "note.wav", wavHead, hint)
			_, params, _ := mime.ParseMediaType(ct)
			ctx := auth.WithPrincipal(context.Background(), &auth.Principal{OrganizationID: org})
			_, err := svc.TranscribeAudio(ctx, platformapi.TranscribeAudioRequestObject{
				Body: multipart.NewReader(body, params["boundary"])})
			done <- err
		}()
		return done
	}
	var results []<-chan error
	for range 4 {
		results = append(results, send(a, "aa"))
	}
	if got := <-back.started; got != "aa" {
		t.Fatalf("the first recognition was of %s", got)
	}
	for slots.Waiting(a) < 3 {
		runtime.Gosched()
	}
	results = append(results, send(b, "bb"))
	if got := <-back.started; got != "bb" {
		t.Fatal("a second recording of the flooding organization took the slot the other one needed")
	}
	close(back.release)
	for i, r := range results {
		if err := <-r; err != nil {
			t.Fatalf("recording %d: %v", i, err)
		}
	}
	if slots.Held(a) != 0 || slots.Held(b) != 0 {
		t.Fatal("slots were not given back")
	}
}
