package emailtasks_test

import (
	"encoding/base64"
	"net/http"
	"net/smtp"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

// bigMessage is a message with one attachment of n random-looking bytes, base64-encoded in lines.
func bigMessage(to string, n int) []byte {
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.WriteString("From: a@sender.example\r\nTo: " + to + "\r\nSubject: big\r\nMessage-ID: <big@sender.example>\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n" +
		"--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"big.bin\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n")
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n--b--\r\n")
	return []byte(b.String())
}

// traced are the settings under which the server reports the live heap of every collection
// (GODEBUG=gctrace=1) and collects after each tenth more of it is allocated (GOGC=10): a message it
// held whole would be live through several collections.
var traced = []string{"GODEBUG=gctrace=1", "GOGC=10"}

// gcLine is the runtime's report of one collection; the third figure is the heap it found live, in
// whole MB (cut down).
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @[^\n]*?, \d+->\d+->(\d+) MB, `)

// liveHeaps are the live heaps the server reported so far, in MB, oldest first.
func liveHeaps(p *testkit.Process) []int {
	var out []int
	for _, m := range gcLine.FindAllStringSubmatch(p.Logs(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// collected waits until the server reports a collection after the first n and returns all it
// reported. An idle server collects seldom; asking it for readiness makes it allocate.
func collected(t *testing.T, env *testkit.Env, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got := liveHeaps(env.Process); len(got) > n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server reported no collection after the %d-th:\n%s", n, env.Process.Logs())
		}
		res, err := http.Get(env.URL + "/health/readiness")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
}

// TestLargeMessageStreams: a 16 MB message is received with the server's live heap growing by far less
// than the message (its attachment goes to storage as it arrives), and a message over
// LOOPWORK_INBOUND_MAX_BYTES is refused with 552 while it is read, leaving nothing behind. The heap is
// the server process's own, as it reports it, so other tests' allocations are not in the figures.
func TestLargeMessageStreams(t *testing.T) {
	t.Parallel()
	env, addr, to, task := inbox(t, append([]string{"LOOPWORK_INBOUND_MAX_BYTES=20M"}, traced...)...)
	const size = 12 << 20
	raw := bigMessage(to, size) // about 16.2 MB on the wire
	before := collected(t, env, len(liveHeaps(env.Process)))
	base := before[len(before)-1]
	err := smtp.SendMail(addr, nil, "a@sender.example", []string{to}, raw)
	if err != nil {
		t.Fatal(err)
	}
	// The collections while the message was read, and one after, as a sample taken when it was done.
	during := collected(t, env, len(before))[len(before):]
	peak := base
	for _, n := range during {
		peak = max(peak, n)
	}
	grew := peak - base
	t.Logf("a %.1f MB message: live heap grew by at most %d MB over %d collections", float64(len(raw))/(1<<20), grew+1, len(during))
	// Whole MB cut down: figures 3 apart are less than 4 MB apart.
	if grew > 3 {
		t.Fatalf("the live heap grew from %d MB to %d MB receiving a %d-byte message", base, peak, len(raw))
	}
	files, _ := filepath.Glob(filepath.Join(env.Config.StorageDir, "org", "*", "email", task.String(), "*", "1-big.bin"))
	if len(files) != 1 {
		t.Fatalf("attachment files %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Size() != size {
		t.Fatalf("stored %v (%v), want %d bytes", fi, err, size)
	}

	over := bigMessage(to, 16<<20) // about 21.6 MB: over the limit
	err = smtp.SendMail(addr, nil, "a@sender.example", []string{to}, over)
	if err == nil || !strings.Contains(err.Error(), "552") {
		t.Fatalf("a message over the limit: %v", err)
	}
	t.Logf("over the limit: %v", err)
	if got := recorded(t, env, task); len(got) != 1 {
		t.Fatalf("recorded %q", got)
	}
	all, _ := filepath.Glob(filepath.Join(env.Config.StorageDir, "org", "*", "email", task.String(), "*", "*"))
	if len(all) != 1 {
		t.Fatalf("files left by the refused message: %v", all)
	}
	// An oversized header section alone is refused too, though the message is within the size limit.
	pad := strings.Repeat("X-Pad: "+strings.Repeat("p", 990)+"\r\n", 1500)
	err = smtp.SendMail(addr, nil, "a@sender.example", []string{to}, []byte(pad+"Subject: padded\r\n\r\nhi\r\n"))
	if err == nil || !strings.Contains(err.Error(), "552") || !strings.Contains(err.Error(), "header") {
		t.Fatalf("an oversized header: %v", err)
	}
}
