package transcription_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/speech"
	"github.com/loopwork/loopwork/internal/testkit"
)

// post sends one recording to a server process with the API key and answers the status and body.
func post(ctx context.Context, t *testing.T, base, key, name string, audio []byte) (int, string, error) {
	t.Helper()
	ct, body := form(t, name, audio, "")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/agent/transcription", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

// ffmpeg runs ffmpeg with args and fails the test when it fails.
func ffmpeg(t *testing.T, args ...string) {
	t.Helper()
	if b, err := exec.Command("ffmpeg", append([]string{"-nostdin", "-loglevel", "error"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v %s", args, err, b)
	}
}

// TestHostileRecordings sends a real server process the recordings a hostile tenant would: a few
// kilobytes of FLAC that decode to hours, and files that pass detection as MP3 but are playlists naming
// a local recording, another file of the server and a URL. Each is refused while it is decoded, nothing
// a playlist names is opened, and no temporary file is left behind, also when the caller hangs up in
// the middle of a recognition.
func TestHostileRecordings(t *testing.T) {
	t.Parallel()
	if _, ok := speech.FindSphinx(1); !ok {
		if os.Getenv("LOOPWORK_REQUIRE_SPEECH") != "" {
			t.Fatal("the offline speech packages must be installed")
		}
		t.Skip("offline speech packages not installed")
	}
	dir := t.TempDir()
	// The secret recording a playlist points at: if ffmpeg followed it, its words would come back.
	secret := filepath.Join(dir, "secret.ts")
	ffmpeg(t, "-f", "s16le", "-ar", "16000", "-ac", "1", "-i", "/usr/share/pocketsphinx/test/data/goforward.raw",
		"-c:a", "mp2", "-f", "mpegts", "-y", secret)
	var fetched atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fetched.Add(1) }))
	t.Cleanup(web.Close)
	// Three hours of silence at 1 kHz, in the largest FLAC frames: about 10 KB.
	long := filepath.Join(dir, "long.flac")
	ffmpeg(t, "-f", "lavfi", "-i", "anullsrc=r=1000:cl=mono", "-t", "10800", "-c:a", "flac", "-frame_size", "65535",
		"-sample_fmt", "s16", "-y", long)
	longAudio, _ := os.ReadFile(long)
	if len(longAudio) > 12<<10 {
		t.Fatalf("the long recording takes %d bytes, want about 10 KB", len(longAudio))
	}
	// Half a minute of speech-like noise, long enough to be in the recogniser when the caller hangs up.
	busy := filepath.Join(dir, "busy.wav")
	ffmpeg(t, "-f", "lavfi", "-i", "anoisesrc=r=16000:a=0.3", "-t", "25", "-ac", "1", "-y", busy)
	busyAudio, _ := os.ReadFile(busy)

	id3 := "ID3\x04\x00\x00\x00\x00\x00\x00"
	playlists := map[string]string{
		"hls-local.mp3":  id3 + "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n" + secret + "\n#EXT-X-ENDLIST\n",
		"hls-passwd.mp3": id3 + "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
		"hls-url.mp3":    id3 + "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n" + web.URL + "/seg.ts\n#EXT-X-ENDLIST\n",
		"concat.mp3":     id3 + "ffconcat version 1.0\nfile " + secret + "\n",
	}

	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	key := testkit.SeedCaller(t, db)
	tmp := t.TempDir()
	proc := testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), "TMPDIR="+tmp,
		"LOOPWORK_TRANSCRIPTION_MAX_SECONDS=30", "LOOPWORK_TRANSCRIPTION_PER_MINUTE=100")
	ctx := context.Background()

	start := time.Now()
	status, body, err := post(ctx, t, proc.URL, key, "long.flac", longAudio)
	if err != nil || status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "LOOPWORK_TRANSCRIPTION_MAX_SECONDS") {
		t.Fatalf("%d bytes of FLAC decoding to 3 hours: %d %s %v", len(longAudio), status, body, err)
	}
	t.Logf("a %d-byte FLAC of 3 hours refused with 413 in %v", len(longAudio), time.Since(start).Round(time.Millisecond))

	for name, text := range playlists {
		status, body, err := post(ctx, t, proc.URL, key, name, []byte(text))
		if err != nil || status != http.StatusUnprocessableEntity || strings.Contains(body, "forward") || strings.Contains(body, "root:") {
			t.Errorf("%s: %d %s %v, want 422 without anything of what it names", name, status, body, err)
		}
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("a playlist's URL was fetched %d times", n)
	}

	hangup, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if status, body, err := post(hangup, t, proc.URL, key, "busy.wav", busyAudio); err == nil {
		t.Logf("the busy recording was answered before the hang-up: %d %s", status, body)
	}
	left := func() []string {
		var names []string
		_ = filepath.WalkDir(tmp, func(path string, d os.DirEntry, err error) error {
			if path != tmp {
				names = append(names, strings.TrimPrefix(path, tmp))
			}
			return nil
		})
		return names
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if names := left(); len(names) > 0 {
		t.Fatalf("temporary files left behind: %v", names)
	}
}
