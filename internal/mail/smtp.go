package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTPConfig says how to reach the SMTP server.
type SMTPConfig struct {
	Host     string
	Port     int
	Username string
	Password string
	// From is an RFC 5322 address with an optional display name: `loopwork <no-reply@example.com>`.
	From string
	// TLS is starttls (the server must offer STARTTLS), tls (TLS from the first byte) or none (plain
	// text, for a relay on the same host or network only). Empty means starttls.
	TLS string
	// RootCAs verifies the server's certificate; nil means the system roots. It is for private CAs and tests.
	RootCAs *x509.CertPool
}

const (
	// dialTimeout bounds connecting, including an implicit TLS handshake.
	dialTimeout = 10 * time.Second
	// commandTimeout bounds each stage of the SMTP conversation (greeting to AUTH, then the message).
	commandTimeout = 30 * time.Second
	// defaultSendTimeout bounds a send whose caller set no deadline, so a silent server cannot hang it.
	defaultSendTimeout = time.Minute
)

// SMTPSender delivers through an SMTP server. Each Send opens its own connection and closes it, so
// sends share no state and a failed one can simply be called again.
type SMTPSender struct {
	cfg  SMTPConfig
	from *netmail.Address
}

// NewSMTPSender checks the configuration and returns the sender.
func NewSMTPSender(cfg SMTPConfig) (*SMTPSender, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: SMTP host is empty")
	}
	if strings.ContainsAny(cfg.Host, ":/ ") && net.ParseIP(cfg.Host) == nil {
		return nil, fmt.Errorf("mail: SMTP host %q must be a host name or IP address, without port or scheme", cfg.Host)
	}
	switch cfg.TLS {
	case "":
		cfg.TLS = "starttls"
	case "starttls", "tls", "none":
	default:
		return nil, fmt.Errorf("mail: SMTP TLS mode %q: must be starttls, tls or none", cfg.TLS)
	}
	if cfg.Port == 0 {
		cfg.Port = map[string]int{"starttls": 587, "tls": 465, "none": 25}[cfg.TLS]
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mail: SMTP port %d: must be a TCP port", cfg.Port)
	}
	if cfg.Username == "" && cfg.Password != "" {
		return nil, errors.New("mail: SMTP password is set but the username is empty")
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail: SMTP from address %q is not an RFC 5322 address like `loopwork <no-reply@example.com>`: %v", cfg.From, err)
	}
	return &SMTPSender{cfg: cfg, from: from}, nil
}

// Delivers is true: messages leave the server.
func (s *SMTPSender) Delivers() bool { return true }

func (s *SMTPSender) addr() string {
	return net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
}

// Send delivers m over a new connection. The connection is closed when ctx ends, so the caller's
// deadline bounds the whole conversation; errors name the stage that failed and never the password.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	msg, err := s.compose(m)
	if err != nil {
		return fmt.Errorf("mail: compose message: %w", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultSendTimeout)
		defer cancel()
	}
	c := &conversation{stage: "connect"}
	defer c.close()
	defer context.AfterFunc(ctx, c.close)()

	client, err := gomail.NewClient(s.cfg.Host, s.clientOptions(c)...)
	if err != nil {
		return s.fail("setup", err)
	}
	sc, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return s.fail(c.currentStage(), contextual(ctx, err))
	}
	err = client.SendWithSMTPClient(sc, msg)
	// A failure after the server accepted the message (the RSET that follows) is not a failed
	// delivery; reporting it would make the outbox send the message twice.
	if err != nil && !msg.IsDelivered() {
		return s.fail(sendStage(err), contextual(ctx, err))
	}
	_ = client.CloseWithSMTPClient(sc)
	return nil
}

func (s *SMTPSender) clientOptions(c *conversation) []gomail.Option {
	tlsConfig := &tls.Config{ServerName: s.cfg.Host, RootCAs: s.cfg.RootCAs, MinVersion: tls.VersionTLS12}
	opts := []gomail.Option{
		gomail.WithPort(s.cfg.Port),
		gomail.WithTimeout(commandTimeout),
		gomail.WithTLSConfig(tlsConfig),
	}
	switch s.cfg.TLS {
	case "starttls":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory),
			gomail.WithDialContextFunc(c.dialer(false, tlsConfig)))
	case "tls":
		// The dialer already speaks TLS; WithSSL only stops go-mail from asking for STARTTLS on top.
		opts = append(opts, gomail.WithSSL(), gomail.WithDialContextFunc(c.dialer(true, tlsConfig)))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS), gomail.WithDialContextFunc(c.dialer(false, nil)))
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuthCustom(&plainOrLogin{
			user: s.cfg.Username, pass: s.cfg.Password, host: s.cfg.Host, conv: c,
		}))
	}
	return opts
}

// compose builds the MIME message: text alone, HTML alone, or both as multipart/alternative.
func (s *SMTPSender) compose(m Message) (*gomail.Msg, error) {
	to, err := netmail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("recipient %q is not one e-mail address: %v", m.To, err)
	}
	// No User-Agent: naming the mail library and its version tells recipients nothing useful.
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.FromFormat(s.from.Name, s.from.Address); err != nil {
		return nil, err
	}
	if err := msg.AddToFormat(to.Name, to.Address); err != nil {
		return nil, err
	}
	// Each further recipient is one address too: a list in one string could smuggle in more.
	for _, a := range m.AlsoTo {
		if err := msg.AddTo(a); err != nil {
			return nil, fmt.Errorf("recipient %q: %w", a, err)
		}
	}
	for _, a := range m.Cc {
		if err := msg.AddCc(a); err != nil {
			return nil, fmt.Errorf("copy recipient %q: %w", a, err)
		}
	}
	for _, a := range m.Bcc {
		if err := msg.AddBcc(a); err != nil {
			return nil, fmt.Errorf("blind copy recipient %q: %w", a, err)
		}
	}
	// A line break in a header would start a new header; subjects are one line by definition.
	msg.Subject(strings.Join(strings.Fields(m.Subject), " "))
	// A Message-ID fixed when the mail was written stays the same on every delivery attempt, so a
	// receiver that got an attempt the server took for failed can tell the next one is the same mail.
	id := m.MessageID
	if id == "" {
		id = messageID(s.from.Address)
	}
	msg.SetMessageIDWithValue(id)
	msg.SetDate()
	// RFC 3834: automatic mail, so vacation responders and the like stay quiet.
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	switch {
	case m.HTML == "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	case m.Text == "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// messageID is random, under the sender's own domain rather than the container's host name.
func messageID(from string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	domain := from[strings.LastIndexByte(from, '@')+1:]
	return hex.EncodeToString(b) + "@" + domain
}

// fail names the stage and the server, and makes sure the password cannot leak through a server's
// echo or a library's message.
func (s *SMTPSender) fail(stage string, err error) error {
	e := fmt.Errorf("mail: SMTP %s failed at %s: %w", stage, s.addr(), err)
	if p := s.cfg.Password; p != "" && strings.Contains(e.Error(), p) {
		return errors.New(strings.ReplaceAll(e.Error(), p, "[redacted]"))
	}
	return e
}

// Permanent reports a refusal that retrying cannot change (an SMTP 5xx such as an unknown mailbox),
// so the outbox gives up at once instead of after every retry.
func Permanent(err error) bool {
	var se *gomail.SendError
	return errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500
}

// sendStage says which SMTP command refused the message.
func sendStage(err error) string {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return "send"
	}
	switch se.Reason {
	case gomail.ErrSMTPMailFrom:
		return "sender (MAIL FROM)"
	case gomail.ErrSMTPRcptTo:
		return "recipient (RCPT TO)"
	case gomail.ErrSMTPData, gomail.ErrWriteContent, gomail.ErrSMTPDataClose:
		return "message (DATA)"
	case gomail.ErrConnCheck:
		return "connection check"
	}
	return "send"
}

// contextual puts the caller's cancellation first: a closed connection is only its symptom.
func contextual(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (%v)", ctxErr, err)
	}
	return err
}
