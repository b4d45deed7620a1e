package speech_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopwork/loopwork/internal/speech"
)

// whisperServer speaks the OpenAI /audio/transcriptions protocol (multipart in, verbose JSON out) and
// records what it was sent.
type whisperServer struct {
	got struct{ model, language, format, filename string }
	n   int64
}

func (w *whisperServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer test-key" {
		rw.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(rw).Encode(map[string]any{"error": map[string]any{"message": "bad key", "type": "invalid_request_error"}})
		return
	}
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.got.model, w.got.language, w.got.format = r.FormValue("model"), r.FormValue("language"), r.FormValue("response_format")
	f, h, err := r.FormFile("file")
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	w.got.filename = h.Filename
	w.n, _ = io.Copy(io.Discard, f)
	rw.Header().Set("Content-Type", "application/json")
	json.NewEncoder(rw).Encode(map[string]any{"task": "transcribe", "language": "english", "duration": 2.25,
		"text": " go forward ten meters ", "segments": []any{}})
}

func TestOpenAICompatibleBackend(t *testing.T) {
	w := &whisperServer{}
	srv := httptest.NewServer(w)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "a.wav")
	os.WriteFile(path, []byte("RIFF\x00\x00\x00\x00WAVEfmt "), 0o600)

	o := speech.NewOpenAI(srv.URL+"/v1", "test-key", "whisper-1", srv.Client())
	res, err := o.Transcribe(context.Background(), path, speech.WAV, "en")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "go forward ten meters" || res.Language != "en" || res.Duration != 2.25 {
		t.Fatalf("result %+v", res)
	}
	if w.got.model != "whisper-1" || w.got.language != "en" || w.got.format != "verbose_json" || w.got.filename != "audio.wav" || w.n != 16 {
		t.Fatalf("sent %+v, %d bytes", w.got, w.n)
	}

	bad := speech.NewOpenAI(srv.URL+"/v1", "wrong-key", "whisper-1", srv.Client())
	if _, err := bad.Transcribe(context.Background(), path, speech.WAV, ""); !errors.Is(err, speech.ErrUpstream) {
		t.Fatalf("a refused key: %v", err)
	}
	srv.Close()
	if _, err := o.Transcribe(context.Background(), path, speech.WAV, ""); !errors.Is(err, speech.ErrUpstream) {
		t.Fatalf("a server that is gone: %v", err)
	}
}
