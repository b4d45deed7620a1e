package transcription_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/speech"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// form builds a multipart body with an audio_file part (and a language when set).
func form(t *testing.T, name string, audio []byte, language string) (string, io.Reader) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if language != "" {
		w.WriteField("language", language)
	}
	if audio != nil {
		p, _ := w.CreateFormFile("audio_file", name)
		p.Write(audio)
	}
	w.Close()
	return w.FormDataContentType(), &b
}

// whisper answers every transcription with a fixed verbose JSON and counts the calls.
func whisper(t *testing.T) (*httptest.Server, *int) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"text": "hello there", "language": "english", "duration": 1.5})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

var wavHead = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00")

// TestTranscribeThroughAConfiguredService covers every status but the offline backend's: 200 with the
// service's transcript, 413, 415, 422 (empty, bad language, no file), 401 and 429.
func TestTranscribeThroughAConfiguredService(t *testing.T) {
	t.Parallel()
	srv, calls := whisper(t)
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.TranscriptionURL, c.TranscriptionMaxBytes = srv.URL, "2K"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)

	ct, body := form(t, "note.wav", wavHead, "en")
	res, err := c.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Text != "hello there" || *res.JSON200.Language != "en" || *res.JSON200.DurationSeconds != 1.5 {
		t.Fatalf("got %s", res.Body)
	}
	cases := []struct {
		name     string
		audio    []byte
		language string
		want     int
		says     string
	}{
		{"big.wav", append(append([]byte{}, wavHead...), make([]byte, 3000)...), "", http.StatusRequestEntityTooLarge, "LOOPWORK_TRANSCRIPTION_MAX_BYTES"},
		{"notes.mp3", []byte("just some text, named like audio"), "", http.StatusUnsupportedMediaType, "MP3, WAV"},
		{"empty.wav", []byte{}, "", http.StatusUnprocessableEntity, "empty"},
		{"a.wav", wavHead, "english", http.StatusUnprocessableEntity, "language"},
		{"", nil, "", http.StatusUnprocessableEntity, "audio_file"},
	}
	for _, tc := range cases {
		ct, body := form(t, tc.name, tc.audio, tc.language)
		res, err := c.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
		testkit.Expect(t, res, err, tc.want)
		if !strings.Contains(string(res.Body), tc.says) {
			t.Errorf("%s: %d does not say %q: %s", tc.name, tc.want, tc.says, res.Body)
		}
	}
	if *calls != 1 {
		t.Fatalf("the service was called %d times; refused uploads must not reach it", *calls)
	}
	anon, _ := env.Clients(t, "")
	ct, body = form(t, "note.wav", wavHead, "")
	unauth, err := anon.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
	testkit.Expect(t, unauth, err, http.StatusUnauthorized)
}

// TestTranscribeRateLimit: an organization's calls past the limit per minute answer 429 with
// Retry-After; another organization is not affected.
func TestTranscribeRateLimit(t *testing.T) {
	t.Parallel()
	srv, _ := whisper(t)
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.TranscriptionURL, c.TranscriptionPerMinute = srv.URL, 2
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	other := env.User(t, env.Org(t), auth.RoleAppUser)
	testkit.AwayFromMinuteBoundary() // the limiter counts in fixed windows
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		ct, body := form(t, "note.wav", wavHead, "")
		res, err := c.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
		testkit.Expect(t, res, err, want)
		if i == 2 && res.HTTPResponse.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
	ct, body := form(t, "note.wav", wavHead, "")
	res, err := other.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
	testkit.Expect(t, res, err, http.StatusOK)
}

// TestTranscribeWithoutBackend: with no service configured and the offline recogniser turned off, 501.
func TestTranscribeWithoutBackend(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.TranscriptionOffline = false
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	ct, body := form(t, "note.wav", wavHead, "")
	res, err := c.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
	testkit.Expect(t, res, err, http.StatusNotImplemented)
	// make run does not install the offline recogniser: the answer names the step that does.
	if !strings.Contains(string(res.Body), "make speech") {
		t.Errorf("the 501 does not name make speech: %s", res.Body)
	}
}

// TestTranscribeOffline: real recorded speech in a browser's format, recognised by the built-in
// offline backend through the API.
func TestTranscribeOffline(t *testing.T) {
	t.Parallel()
	if _, ok := speech.FindSphinx(1); !ok {
		if os.Getenv("LOOPWORK_REQUIRE_SPEECH") != "" {
			t.Fatal("the offline speech packages must be installed")
		}
		t.Skip("offline speech packages not installed")
	}
	out := filepath.Join(t.TempDir(), "note.webm")
	cmd := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "s16le", "-ar", "16000", "-ac", "1",
		"-i", "/usr/share/pocketsphinx/test/data/goforward.raw", "-c:a", "libopus", "-f", "webm", "-y", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	audio, _ := os.ReadFile(out)
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	ct, body := form(t, "recording", audio, "")
	res, err := c.API.TranscribeAudioWithBodyWithResponse(ctx, ct, body)
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Text != "go forward ten meters" || *res.JSON200.Language != "en" {
		t.Fatalf("got %s", res.Body)
	}
}
