package emailtasks_test

import (
	"fmt"
	"net/http"
	"net/smtp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// inbox starts a `loopwork serve` with an SMTP listener and the settings, and returns its address,
// the address of a new e-mail task (without a flow) and the task's id. The listener's port is chosen
// here, since only an in-process server could say which one it took.
func inbox(t *testing.T, settings ...string) (*testkit.Env, string, string, uuid.UUID) {
	t.Helper()
	env := testkit.NewProcessEnv(t, append([]string{"LOOPWORK_INBOUND_SMTP_ADDR=" + testkit.FreePort(t),
		"LOOPWORK_INBOUND_DOMAIN=in.loopwork.test"}, settings...)...)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	created, err := c.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "inbox"})
	testkit.Expect(t, created, err, http.StatusCreated)
	return env, env.Config.InboundSMTPAddr, string(created.JSON201.EmailAddress), created.JSON201.TaskId
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
	env, addr, to, task := inbox(t)
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
	env, addr, to, task := inbox(t, fmt.Sprintf("LOOPWORK_INBOUND_MAX_SESSIONS=%d", max), "LOOPWORK_INBOUND_SESSION_TIMEOUT=3s")
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
