package testkit

import (
	"io"
	"log"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Inbox is a real SMTP server (emersion/go-smtp) on a loopback port that accepts every message and keeps
// it, so a test can send through the product's own SMTP sender and read what arrived, envelope included.
type Inbox struct {
	// Addr is host:port, and Port the port alone, as the product's SMTP settings take them apart.
	Addr string
	Port int

	mu   sync.Mutex
	mail []InboxMessage
}

// InboxMessage is one message the inbox accepted: its envelope and its data as sent (headers and body,
// CRLF line ends, unparsed), so each test reads it as it needs.
type InboxMessage struct {
	From string
	Rcpt []string
	Data []byte
}

// StartInbox starts an inbox on a free loopback port; it closes when the test ends.
func StartInbox(t testing.TB) *Inbox {
	t.Helper()
	in := &Inbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &inboxSession{in: in}, nil }))
	srv.Domain = "mx.test"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in.Addr, in.Port = ln.Addr().String(), ln.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return in
}

// Messages returns what the inbox accepted so far, in the order it accepted them.
func (in *Inbox) Messages() []InboxMessage {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]InboxMessage(nil), in.mail...)
}

// Wait returns the accepted messages once there are at least n, and fails the test after 20 s: delivery
// goes through the outbox's queue, so a message arrives some time after the task that sent it ended.
func (in *Inbox) Wait(t testing.TB, n int) []InboxMessage {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := in.Messages()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the SMTP inbox has %d messages, want %d", len(got), n)
		}
	}
}

type inboxSession struct {
	in   *Inbox
	from string
	rcpt []string
}

func (s *inboxSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *inboxSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.rcpt = append(s.rcpt, to)
	return nil
}

func (s *inboxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	s.in.mail = append(s.in.mail, InboxMessage{From: s.from, Rcpt: s.rcpt, Data: b})
	return nil
}

// Reset ends the message in progress; the next one starts a new envelope.
func (s *inboxSession) Reset()        { s.from, s.rcpt = "", nil }
func (s *inboxSession) Logout() error { return nil }
