package gallery_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	netmail "net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// inbox is a real SMTP server (emersion/go-smtp) on a loopback port that keeps what the server's outbox
// delivers, as the executors' mail tests use.
type inbox struct {
	Port int

	mu   sync.Mutex
	mail []delivered
}

// delivered is one accepted message, parsed.
type delivered struct {
	To      []string
	Subject string
	Body    string
}

func startInbox(t *testing.T) *inbox {
	t.Helper()
	in := &inbox{}
	srv := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return &inboxSession{in: in}, nil }))
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

// wait returns the delivered messages once there are n.
func (in *inbox) wait(t *testing.T, n int) []delivered {
	t.Helper()
	var got []delivered
	eventually(t, fmt.Sprintf("%d e-mails", n), func() bool {
		in.mu.Lock()
		got = append([]delivered(nil), in.mail...)
		in.mu.Unlock()
		return len(got) >= n
	})
	return got
}

type inboxSession struct {
	in   *inbox
	rcpt []string
}

func (s *inboxSession) Mail(string, *gosmtp.MailOptions) error { return nil }

func (s *inboxSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.rcpt = append(s.rcpt, to)
	return nil
}

func (s *inboxSession) Data(r io.Reader) error {
	msg, err := netmail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return err
	}
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		if body, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body))); err != nil {
			return err
		}
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return err
	}
	var to []string
	if list, err := msg.Header.AddressList("To"); err == nil {
		for _, a := range list {
			to = append(to, a.Address)
		}
	}
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	s.in.mail = append(s.in.mail, delivered{To: to, Subject: subject,
		Body: strings.TrimRight(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n")})
	return nil
}

func (s *inboxSession) Reset()        { s.rcpt = nil }
func (s *inboxSession) Logout() error { return nil }

// message is the sample input of the inbound e-mail example: what someone sends to the task's address.
type message struct {
	From        string `json:"from"`
	Subject     string `json:"subject"`
	Text        string `json:"text"`
	Attachments []struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Content     string `json:"content"`
	} `json:"attachments"`
}

// mime writes the message as a multipart MIME e-mail to the address, with a Message-ID of its own.
func (m message) mime(to string) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@sender.example>\r\nMIME-Version: 1.0\r\n"+
		"Content-Type: multipart/mixed; boundary=%q\r\n\r\n", m.From, to, mime.QEncoding.Encode("utf-8", m.Subject),
		uuid.NewString(), mw.Boundary())
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}})
	_, _ = part.Write([]byte(strings.ReplaceAll(m.Text, "\n", "\r\n")))
	for _, a := range m.Attachments {
		part, _ := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {mime.FormatMediaType(a.ContentType, map[string]string{"name": a.Filename})},
			"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})},
			"Content-Transfer-Encoding": {"base64"},
		})
		_, _ = part.Write([]byte(base64.StdEncoding.EncodeToString([]byte(a.Content))))
	}
	_ = mw.Close()
	return b.Bytes()
}

// receiveEmail creates an e-mail task of the flow, sends the sample message to its address over SMTP,
// and returns the execution the message started.
func (w *world) receiveEmail() uuid.UUID {
	t := w.t
	var m message
	if err := decodeStrict(w.ex.Input, &m); err != nil {
		t.Fatalf("input: the message an inbound e-mail example receives: %v", err)
	}
	if w.ex.Given.EmailTask == "" {
		t.Fatal("given.email_task: the task that handles the message is required")
	}
	created, err := w.owner.API.CreateEmailTaskWithResponse(ctx, platformapi.EmailTaskRequest{Name: "inbound",
		FlowId: &w.flow, TaskName: &w.ex.Given.EmailTask})
	testkit.Expect(t, created, err, http.StatusCreated)
	to := string(created.JSON201.EmailAddress)
	if err := smtp.SendMail(w.env.Server.InboundSMTPAddr(), nil, m.From, []string{to}, m.mime(to)); err != nil {
		t.Fatal(err)
	}
	var exec uuid.UUID
	eventually(t, "the execution the e-mail starts", func() bool {
		res, err := w.owner.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &w.flow})
		testkit.Expect(t, res, err, http.StatusOK)
		if len(res.JSON200.FlowExecutions) == 0 {
			return false
		}
		exec = res.JSON200.FlowExecutions[0].Id
		return true
	})
	return exec
}
