package executors_test

import (
	"io"
	"log"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// inbox is a real SMTP server (emersion/go-smtp) on a loopback port that keeps what it accepts.
type inbox struct {
	Port int

	mu   sync.Mutex
	mail []delivered
}

// delivered is one accepted message: its envelope recipients and its data.
type delivered struct {
	Rcpt []string
	Data []byte
}

func startInbox(t *testing.T) *inbox {
	t.Helper()
	in := &inbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &inboxSession{in: in}, nil }))
	srv.Domain = "mx.test"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in.Port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return in
}

// wait returns the accepted messages once there are n, and fails the test after 20 seconds.
func (in *inbox) wait(t *testing.T, n int) []delivered {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		in.mu.Lock()
		got := append([]delivered(nil), in.mail...)
		in.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SMTP server received %d messages, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type inboxSession struct {
	in   *inbox
	rcpt []string
}

func (s *inboxSession) Mail(string, *smtp.MailOptions) error { return nil }

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
	s.in.mail = append(s.in.mail, delivered{Rcpt: s.rcpt, Data: b})
	return nil
}

func (s *inboxSession) Reset()        { s.rcpt = nil }
func (s *inboxSession) Logout() error { return nil }
