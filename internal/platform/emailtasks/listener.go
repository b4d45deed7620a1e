package emailtasks

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Listener is the inbound SMTP server: it accepts mail for the active tasks' addresses only.
type Listener struct {
	s   *Service
	srv *smtp.Server
	ln  net.Listener
}

// Listen starts the SMTP listener on addr (host:port; port 0 picks one).
func (s *Service) Listen(addr string) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &Listener{s: s, ln: newLimitListener(ln, s.d.MaxSessions, s.d.SessionTimeout)}
	l.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	l.srv.Domain = s.d.Domain
	l.srv.MaxMessageBytes = s.d.MaxBytes
	l.srv.MaxRecipients = 50
	l.srv.ReadTimeout, l.srv.WriteTimeout = time.Minute, time.Minute
	l.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() { _ = l.srv.Serve(l.ln) }()
	return l, nil
}

// Addr is where the listener listens.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Close stops accepting connections and ends the open ones.
func (l *Listener) Close() error { return l.srv.Close() }

// session is one SMTP conversation: the recipients it named, each an active task.
type session struct {
	s     *Service
	tasks []row
}

func (c *session) Mail(string, *smtp.MailOptions) error { return nil }

var errTryLater = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}

var errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox here"}

// Rcpt accepts the address of an active task (whose flow, if any, still exists); any other is 550.
func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	local, ok := c.s.localPart(to)
	if !ok {
		return errNoMailbox
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var r row
	err := c.s.d.DB.GetContext(ctx, &r, `SELECT `+columns+from+` WHERE t.local_part = $1 AND t.deleted_at IS NULL`, local)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) || err == nil && r.Status != "active" {
		return errNoMailbox
	}
	if err != nil {
		return errTryLater
	}
	for _, t := range c.tasks {
		if t.ID == r.ID {
			return nil
		}
	}
	c.tasks = append(c.tasks, r)
	return nil
}

// Data records the message for each recipient task; the answer is 250 only once every one is recorded
// (and its execution started), so a sender that hears otherwise retries, and a retry of a message
// already recorded (the same Message-ID and content) is recorded once. The message is read once, as a
// stream: attachments go to storage as they arrive, for the first task; the others get copies.
func (c *session) Data(r io.Reader) error {
	in := &counter{r: r}
	ctx, cancel := context.WithTimeout(context.Background(), c.s.d.SessionTimeout+time.Minute)
	defer cancel()
	first, id := c.tasks[0], uuid.New()
	var atts []storedAttachment
	m, err := read(in, func(n int, name, ctype string, body io.Reader) error {
		a, err := c.s.storeAttachment(ctx, first, id, n, name, ctype, body)
		if err != nil {
			return &storeError{err}
		}
		atts = append(atts, a)
		return nil
	})
	if err == nil && in.err != nil {
		err = in.err
	}
	if err != nil {
		c.s.discard(ctx, first, atts)
		return c.s.refusal(first, in.err, err)
	}
	for i, t := range c.tasks {
		tid, tatts := id, atts
		if i > 0 {
			tid = uuid.New()
			if tatts, err = c.s.copyAttachments(ctx, first, t, tid, atts); err != nil {
				c.s.d.Logger.Error("inbound e-mail attachments not copied", "email_task", t.ID, "error", err)
				return errTryLater
			}
		}
		if err := c.s.receive(ctx, t, tid, m, tatts, in.n); err != nil {
			c.s.d.Logger.Error("inbound e-mail not recorded", "email_task", t.ID, "error", err)
			return errTryLater
		}
	}
	return nil
}

func (c *session) Reset()        { c.tasks = nil }
func (c *session) Logout() error { return nil }
