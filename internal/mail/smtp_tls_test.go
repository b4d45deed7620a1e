package mail_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/mail"
)

var hello = mail.Message{To: "ann@example.com", Subject: "Hello", Text: "Hello Ann"}

func TestSMTPStartTLS(t *testing.T) {
	t.Parallel()
	t.Run("upgrades, then authenticates", func(t *testing.T) {
		t.Parallel()
		srv := startSMTP(t, serverOptions{STARTTLS: true, User: "mailer", Pass: "s3cret-Pa55"})
		s := newSender(t, srv, func(c *mail.SMTPConfig) {
			c.TLS, c.RootCAs, c.Username, c.Password = "starttls", testRoots(t), "mailer", "s3cret-Pa55"
		})
		if err := s.Send(sendCtx(t), hello); err != nil {
			t.Fatal(err)
		}
		got := srv.Messages()
		if len(got) != 1 || !got[0].TLS || got[0].User != "mailer" {
			t.Fatalf("received %+v, want one message over TLS from mailer", got)
		}
	})
	t.Run("verifies the certificate", func(t *testing.T) {
		t.Parallel()
		srv := startSMTP(t, serverOptions{STARTTLS: true})
		// No RootCAs: the system roots do not know the test CA.
		s := newSender(t, srv, func(c *mail.SMTPConfig) { c.TLS = "starttls" })
		err := s.Send(sendCtx(t), hello)
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("error %v, want an untrusted certificate", err)
		}
		if len(srv.Messages()) != 0 {
			t.Fatal("delivered over an unverified connection")
		}
	})
	t.Run("refuses a server without STARTTLS", func(t *testing.T) {
		t.Parallel()
		srv := startSMTP(t, serverOptions{})
		s := newSender(t, srv, func(c *mail.SMTPConfig) { c.TLS, c.RootCAs = "starttls", testRoots(t) })
		err := s.Send(sendCtx(t), hello)
		if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
			t.Fatalf("error %v, want STARTTLS missing", err)
		}
		if len(srv.Messages()) != 0 {
			t.Fatal("delivered in clear text although STARTTLS is required")
		}
	})
	t.Run("no AUTH before the upgrade", func(t *testing.T) {
		t.Parallel()
		// This server offers AUTH only after STARTTLS; with "none" the client never upgrades.
		srv := startSMTP(t, serverOptions{STARTTLS: true, User: "mailer", Pass: "s3cret-Pa55"})
		s := newSender(t, srv, func(c *mail.SMTPConfig) { c.Username, c.Password = "mailer", "s3cret-Pa55" })
		err := s.Send(sendCtx(t), hello)
		if err == nil || !strings.Contains(err.Error(), "offers no SMTP AUTH") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestSMTPImplicitTLS(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{ImplicitTLS: true, User: "mailer", Pass: "s3cret-Pa55"})
	s := newSender(t, srv, func(c *mail.SMTPConfig) {
		c.TLS, c.RootCAs, c.Username, c.Password = "tls", testRoots(t), "mailer", "s3cret-Pa55"
	})
	if err := s.Send(sendCtx(t), hello); err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages(); len(got) != 1 || !got[0].TLS {
		t.Fatalf("received %+v, want one message over TLS", got)
	}
	// The same server spoken to in plain text never answers as SMTP would.
	plain := newSender(t, srv, func(c *mail.SMTPConfig) { c.TLS = "none" })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := plain.Send(ctx, hello); err == nil {
		t.Fatal("plain text to an implicit TLS port succeeded")
	}
}

func TestSMTPRecipientRejected(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{RejectRcpt: "nobody@example.com"})
	s := newSender(t, srv, nil)
	err := s.Send(sendCtx(t), mail.Message{To: "nobody@example.com", Subject: "s", Text: "t"})
	if err == nil || !strings.Contains(err.Error(), "recipient (RCPT TO)") || !strings.Contains(err.Error(), "550") {
		t.Fatalf("error %v, want the recipient rejected with 550", err)
	}
	if len(srv.Messages()) != 0 {
		t.Fatal("a rejected recipient got mail")
	}
	// The sender holds no state from the failure: the next message goes through.
	if err := s.Send(sendCtx(t), hello); err != nil {
		t.Fatal(err)
	}
}

func TestSMTPTemporaryFailureThenRetry(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{FailData: 1})
	s := newSender(t, srv, nil)
	err := s.Send(sendCtx(t), hello)
	if err == nil || !strings.Contains(err.Error(), "message (DATA)") || !strings.Contains(err.Error(), "451") {
		t.Fatalf("error %v, want DATA refused with 451", err)
	}
	if err := s.Send(sendCtx(t), hello); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("server accepted %d messages, want 1", n)
	}
}

func TestSMTPConnectFailure(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s, err := mail.NewSMTPSender(mail.SMTPConfig{Host: "127.0.0.1", Port: port, From: "x@loopwork.test", TLS: "none"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(sendCtx(t), hello)
	if err == nil || !strings.Contains(err.Error(), "connect failed at 127.0.0.1:"+strconv.Itoa(port)) {
		t.Fatalf("error %v, want a connect failure naming the server", err)
	}
}

// TestSMTPHonoursTheContext talks to a server that accepts the connection and then says nothing:
// the caller's deadline, not a library default, ends the send.
func TestSMTPHonoursTheContext(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	s, err := mail.NewSMTPSender(mail.SMTPConfig{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port,
		From: "x@loopwork.test", TLS: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.Send(ctx, hello)
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("error %v, want the deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("send took %s after a 300ms deadline", d)
	}
}

func TestNewSMTPSenderValidates(t *testing.T) {
	t.Parallel()
	ok := mail.SMTPConfig{Host: "smtp.example.com", Port: 587, From: "loopwork <no-reply@example.com>", TLS: "starttls"}
	if _, err := mail.NewSMTPSender(ok); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		adjust func(*mail.SMTPConfig)
		want   string
	}{
		"empty host":           {func(c *mail.SMTPConfig) { c.Host = "" }, "host is empty"},
		"host with port":       {func(c *mail.SMTPConfig) { c.Host = "smtp.example.com:587" }, "without port"},
		"unknown TLS mode":     {func(c *mail.SMTPConfig) { c.TLS = "ssl" }, "starttls, tls or none"},
		"port out of range":    {func(c *mail.SMTPConfig) { c.Port = 70000 }, "port 70000"},
		"from without address": {func(c *mail.SMTPConfig) { c.From = "loopwork" }, "from address \"loopwork\""},
		"from with two":        {func(c *mail.SMTPConfig) { c.From = "a@example.com, b@example.com" }, "from address"},
		"password, no user":    {func(c *mail.SMTPConfig) { c.Password = "pw-only" }, "username is empty"},
	} {
		cfg := ok
		tc.adjust(&cfg)
		_, err := mail.NewSMTPSender(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}
