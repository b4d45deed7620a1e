package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/mail"
)

func newSender(t *testing.T, srv *smtpServer, adjust func(*mail.SMTPConfig)) *mail.SMTPSender {
	t.Helper()
	cfg := mail.SMTPConfig{Host: srv.Host, Port: srv.Port, From: "Loopwork Team <no-reply@loopwork.test>", TLS: "none"}
	if adjust != nil {
		adjust(&cfg)
	}
	s, err := mail.NewSMTPSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sendCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// parsedMail is a received message read back with the standard library, as a mail client would.
type parsedMail struct {
	Header      netmail.Header
	ContentType string
	Text, HTML  string
}

func parseMail(t *testing.T, data []byte) parsedMail {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("received message does not parse: %v\n%s", err, data)
	}
	p := parsedMail{Header: msg.Header}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", msg.Header.Get("Content-Type"), err)
	}
	p.ContentType = mediaType
	store := func(mediaType, body string) {
		switch mediaType {
		case "text/plain":
			p.Text = body
		case "text/html":
			p.HTML = body
		default:
			t.Fatalf("unexpected part %s", mediaType)
		}
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		store(mediaType, decodeBody(t, msg.Header.Get("Content-Transfer-Encoding"), msg.Body))
		return p
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return p
		}
		if err != nil {
			t.Fatalf("multipart: %v", err)
		}
		pt, _, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		// multipart.Part already undoes quoted-printable and drops the header; base64 stays.
		store(pt, decodeBody(t, part.Header.Get("Content-Transfer-Encoding"), part))
	}
}

func decodeBody(t *testing.T, encoding string, r io.Reader) string {
	t.Helper()
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

func TestSMTPDeliversTextAndHTML(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{})
	s := newSender(t, srv, nil)
	if !s.Delivers() {
		t.Fatal("the SMTP sender must report that it delivers")
	}
	m := mail.Message{
		To:      "Ann Example <ann@example.com>",
		Subject: "Willkommen bei loopwork – bitte bestätigen",
		Text:    "Hello Ann,\nconfirm here: https://loopwork.test/confirm?token=abc=123\n",
		HTML:    `<p>Hello Ann,</p><p><a href="https://loopwork.test/confirm?token=abc=123">confirm</a></p>`,
	}
	if err := s.Send(sendCtx(t), m); err != nil {
		t.Fatal(err)
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	if got[0].From != "no-reply@loopwork.test" || len(got[0].To) != 1 || got[0].To[0] != "ann@example.com" {
		t.Fatalf("envelope from %q to %v", got[0].From, got[0].To)
	}
	p := parseMail(t, got[0].Data)
	from, err := p.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Name != "Loopwork Team" || from[0].Address != "no-reply@loopwork.test" {
		t.Fatalf("From header %v (%v)", from, err)
	}
	to, err := p.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "ann@example.com" || to[0].Name != "Ann Example" {
		t.Fatalf("To header %v (%v)", to, err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(p.Header.Get("Subject"))
	if err != nil || subject != m.Subject {
		t.Fatalf("Subject %q (%v), want %q", subject, err, m.Subject)
	}
	if id := p.Header.Get("Message-Id"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@loopwork.test>") {
		t.Fatalf("Message-ID %q is not under the sender's domain", id)
	}
	if d, err := p.Header.Date(); err != nil || time.Since(d) > time.Minute {
		t.Fatalf("Date %v (%v)", d, err)
	}
	if p.Header.Get("X-Mailer") != "" || p.Header.Get("User-Agent") != "" {
		t.Fatalf("the message names its mailer: %v", p.Header)
	}
	if p.Header.Get("Auto-Submitted") != "auto-generated" {
		t.Fatalf("Auto-Submitted %q", p.Header.Get("Auto-Submitted"))
	}
	if p.ContentType != "multipart/alternative" {
		t.Fatalf("Content-Type %s, want multipart/alternative", p.ContentType)
	}
	if p.Text != m.Text || p.HTML != m.HTML {
		t.Fatalf("text %q html %q", p.Text, p.HTML)
	}
}

func TestSMTPTextOnlyIsOnePart(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{})
	s := newSender(t, srv, nil)
	if err := s.Send(sendCtx(t), mail.Message{To: "bob@example.com", Subject: "Export ready", Text: "Your export is ready."}); err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, srv.Messages()[0].Data)
	// SMTP ends every message with a line break, so a one-part body gains one.
	if p.ContentType != "text/plain" || p.Text != "Your export is ready.\n" || p.HTML != "" {
		t.Fatalf("got %s text %q html %q", p.ContentType, p.Text, p.HTML)
	}
}

// TestSMTPHeadersCannotBeInjected sends attacker-shaped input: a subject with a line break cannot add
// a header or a recipient, and a recipient field with two addresses is refused.
func TestSMTPHeadersCannotBeInjected(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{})
	s := newSender(t, srv, nil)
	err := s.Send(sendCtx(t), mail.Message{To: "bob@example.com", Subject: "Hi\r\nBcc: eve@evil.test\r\n", Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Messages()
	if len(got) != 1 || len(got[0].To) != 1 {
		t.Fatalf("recipients %v", got)
	}
	p := parseMail(t, got[0].Data)
	subject, _ := new(mime.WordDecoder).DecodeHeader(p.Header.Get("Subject"))
	if p.Header.Get("Bcc") != "" || subject != "Hi Bcc: eve@evil.test" {
		t.Fatalf("subject %q, headers %v", subject, p.Header)
	}
	err = s.Send(sendCtx(t), mail.Message{To: "bob@example.com, eve@evil.test", Subject: "x", Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "recipient") {
		t.Fatalf("two recipients: error %v", err)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("server received %d messages, want still 1", n)
	}
}

func TestSMTPAuth(t *testing.T) {
	t.Parallel()
	const user, pass = "mailer", "s3cret-Pa55"
	for _, mechs := range [][]string{{"PLAIN", "LOGIN"}, {"LOGIN"}} {
		t.Run(strings.Join(mechs, "+"), func(t *testing.T) {
			t.Parallel()
			srv := startSMTP(t, serverOptions{User: user, Pass: pass, Mechanisms: mechs})
			good := newSender(t, srv, func(c *mail.SMTPConfig) { c.Username, c.Password = user, pass })
			if err := good.Send(sendCtx(t), mail.Message{To: "ann@example.com", Subject: "s", Text: "t"}); err != nil {
				t.Fatal(err)
			}
			if got := srv.Messages(); len(got) != 1 || got[0].User != user {
				t.Fatalf("received %+v", got)
			}

			const wrong = "wrong-Pa55word"
			bad := newSender(t, srv, func(c *mail.SMTPConfig) { c.Username, c.Password = user, wrong })
			err := bad.Send(sendCtx(t), mail.Message{To: "ann@example.com", Subject: "s", Text: "t"})
			if err == nil || !strings.Contains(err.Error(), "authentication") || !strings.Contains(err.Error(), "535") {
				t.Fatalf("wrong password: error %v, want an authentication failure", err)
			}
			if strings.Contains(err.Error(), wrong) {
				t.Fatalf("error %q contains the password", err)
			}
			if srv.AuthFailures() != 1 || len(srv.Messages()) != 1 {
				t.Fatalf("auth failures %d, messages %d", srv.AuthFailures(), len(srv.Messages()))
			}
		})
	}
	t.Run("no credentials", func(t *testing.T) {
		t.Parallel()
		srv := startSMTP(t, serverOptions{User: user, Pass: pass})
		err := newSender(t, srv, nil).Send(sendCtx(t), mail.Message{To: "ann@example.com", Subject: "s", Text: "t"})
		if err == nil || !strings.Contains(err.Error(), "MAIL FROM") {
			t.Fatalf("error %v, want the sender refused", err)
		}
	})
}

// TestSMTPNoPasswordInClearToARemoteHost: in "none" mode AUTH happens only with localhost. The
// server listens on 127.0.0.2, which the client treats like any other address, so it must refuse.
func TestSMTPNoPasswordInClearToARemoteHost(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{User: "mailer", Pass: "s3cret-Pa55", ListenHost: "127.0.0.2"})
	s := newSender(t, srv, func(c *mail.SMTPConfig) { c.Username, c.Password = "mailer", "s3cret-Pa55" })
	err := s.Send(sendCtx(t), mail.Message{To: "ann@example.com", Subject: "s", Text: "t"})
	if err == nil || !strings.Contains(err.Error(), "unencrypted") {
		t.Fatalf("error %v, want a refusal to send the password in clear", err)
	}
	if len(srv.Messages()) != 0 || srv.AuthFailures() != 0 {
		t.Fatal("the password reached the server")
	}
}
