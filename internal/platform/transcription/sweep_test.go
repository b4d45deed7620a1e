package transcription_test

import (
	"context"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

// silentWAV is a tenth of a second of 16 kHz mono silence.
func silentWAV() []byte {
	const data = 3200
	b := make([]byte, 44+data)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], 36+data)
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], 16000)
	binary.LittleEndian.PutUint32(b[28:], 32000)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], data)
	return b
}

// TestKilledServerRecordingsSwept: a server process killed while a recording is being transcribed
// leaves the recording in its temporary directory; the next server to start there removes it, and
// keeps what a running process (this test) has there.
func TestKilledServerRecordingsSwept(t *testing.T) {
	t.Parallel()
	received := make(chan struct{}, 1)
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case received <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); backend.Close() })

	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	key := testkit.SeedCaller(t, db)
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp, "LOOPWORK_TRANSCRIPTION_URL=" + backend.URL + "/v1", "LOOPWORK_TRANSCRIPTION_PER_MINUTE=100"}
	first := testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), env...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _, _ = post(ctx, t, first.URL, key, "quiet.wav", silentWAV()) }()
	select {
	case <-received:
	case <-time.After(20 * time.Second):
		t.Fatalf("the recording never reached the backend\n%s", first.Logs())
	}
	first.Kill()

	names := func() []string {
		entries, _ := os.ReadDir(tmp)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	left := names()
	if len(left) != 1 || !strings.HasPrefix(left[0], "loopwork-audio-") {
		t.Fatalf("after the kill the temporary directory holds %v, want the recording", left)
	}
	// The kill happened a while ago; a running process's recording of the same age stays.
	ago := time.Now().Add(-2 * time.Minute)
	mine := filepath.Join(tmp, "loopwork-audio-"+strconv.Itoa(os.Getpid())+"-busy")
	if err := os.WriteFile(mine, []byte("audio"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(tmp, left[0]), mine} {
		if err := os.Chtimes(p, ago, ago); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), env...)
	if got := names(); len(got) != 1 || got[0] != filepath.Base(mine) {
		t.Fatalf("after the next start the temporary directory holds %v, want only %s", got, filepath.Base(mine))
	}
}
