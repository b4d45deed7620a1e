package emailtasks_test

import (
	"encoding/base64"
	"net/http"
	"net/smtp"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// inbox starts a server with an SMTP listener configured by f and returns its address, the address
// of a new e-mail task (without a flow) and the task's id.
func inbox(t *testing.T, f func(*config.Config)) (*testkit.Env, string, string, uuid.UUID) {
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.InboundSMTPAddr, c.InboundDomain = "127.0.0.1:0", "in.loopwork.test"
		if f != nil {
			f(c)
		}
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	created, err := c.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "inbox"})
	testkit.Expect(t, created, err, http.StatusCreated)
	return env, env.Server.InboundSMTPAddr(), string(created.JSON201.EmailAddress), created.JSON201.TaskId
}

func recorded(t *testing.T, env *testkit.Env, task uuid.UUID) []string {
	t.Helper()
	var subjects []string
	if err := env.DB.Select(&subjects, `SELECT subject FROM email_messages WHERE email_task_id = $1 ORDER BY received_at`, task); err != nil {
		t.Fatal(err)
	}
	return subjects
}

// TestSpoofedMessageIDDoesNotSuppressMail: a forged message that reuses a real message's Message-ID
// is recorded and does not make the real one a "repetition"; only a true redelivery (the same
// content, perhaps through another relay) is recorded once.
func TestSpoofedMessageIDDoesNotSuppressMail(t *testing.T) {
	t.Parallel()
	env, addr, to, task := inbox(t, nil)
	msg := func(subject, body string) []byte {
		return []byte("From: a@sender.example\r\nTo: " + to + "\r\nSubject: " + subject +
			"\r\nMessage-ID: <order-7@sender.example>\r\n\r\n" + body + "\r\n")
	}
	send := func(raw []byte) {
		t.Helper()
		if err := smtp.SendMail(addr, nil, "a@sender.example", []string{to}, raw); err != nil {
			t.Fatal(err)
		}
	}
	send(msg("forged", "pay to the attacker"))                                                     // the attacker's, first
	send(msg("order 7", "the real order"))                                                         // the real message, same Message-ID
	send(msg("order 7", "the real order"))                                                         // the real one again, byte for byte
	send(append([]byte("Received: from relay2.example\r\n"), msg("order 7", "the real order")...)) // again, by another relay
	if got := recorded(t, env, task); strings.Join(got, "|") != "forged|order 7" {
		t.Fatalf("recorded %q, want the forged and the real message once each", got)
	}
}

// TestSessionCap: sessions beyond LOOPWORK_INBOUND_MAX_SESSIONS are answered 421 at once while the
// held ones keep working; a session ends at LOOPWORK_INBOUND_SESSION_TIMEOUT however busy it is.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	const max = 4
	env, addr, to, task := inbox(t, func(c *config.Config) {
		c.InboundMaxSessions, c.InboundSessionTimeout = max, 3*time.Second
	})
	held := make([]*smtp.Client, max)
	for i := range held {
		c, err := smtp.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		held[i] = c
	}
	// Forty more at once: every one is refused with 421, none waits.
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	begin := time.Now()
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := smtp.Dial(addr)
			if err == nil {
				c.Close()
				return
			}
			if strings.Contains(err.Error(), "421") {
				mu.Lock()
				refused++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if refused != 40 || time.Since(begin) > 5*time.Second {
		t.Fatalf("%d of 40 sessions past the cap refused with 421, in %s", refused, time.Since(begin))
	}
	// A held session still delivers.
	c := held[0]
	if err := c.Mail("a@sender.example"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(to); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("Subject: held\r\n\r\nstill served\r\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A session kept busy (a NOOP every 200 ms, well within each command's timeout) ends at its deadline.
	busy := held[1]
	start := time.Now()
	for busy.Noop() == nil {
		if time.Since(start) > 10*time.Second {
			t.Fatal("a busy session outlived its deadline")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The slots freed by ended sessions serve new ones.
	for _, c := range held {
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := smtp.SendMail(addr, nil, "a@sender.example", []string{to}, []byte("Subject: later\r\n\r\nafter the cap\r\n"))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot after the held sessions ended: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := recorded(t, env, task); strings.Join(got, "|") != "held|later" {
		t.Fatalf("recorded %q", got)
	}
}

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

// liveHeap samples the live heap (after a collection) until stop is closed and reports its peak.
func liveHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			runtime.GC()
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return out
}

// TestLargeMessageStreams: a 16 MB message is received with the server's live heap growing by far less
// than the message (its attachment goes to storage as it arrives), and a message over
// LOOPWORK_INBOUND_MAX_BYTES is refused with 552 while it is read, leaving nothing behind. Not
// parallel, so that no other test's allocations are in the figures.
func TestLargeMessageStreams(t *testing.T) {
	env, addr, to, task := inbox(t, func(c *config.Config) { c.InboundMaxBytes = "20M" })
	const size = 12 << 20
	raw := bigMessage(to, size) // about 16.2 MB on the wire
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	stop := make(chan struct{})
	peak := liveHeap(stop)
	err := smtp.SendMail(addr, nil, "a@sender.example", []string{to}, raw)
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	grew := int64(<-peak) - int64(base)
	t.Logf("a %.1f MB message: live heap grew by at most %.2f MB", float64(len(raw))/(1<<20), float64(grew)/(1<<20))
	if grew > 4<<20 {
		t.Fatalf("the live heap grew by %d bytes receiving a %d-byte message", grew, len(raw))
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
