package mail_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// serverOptions shape the in-process SMTP server a test talks to.
type serverOptions struct {
	// User and Pass, when set, make the server require AUTH with exactly these credentials.
	User, Pass string
	// Mechanisms offered for AUTH; PLAIN when empty.
	Mechanisms []string
	// STARTTLS offers STARTTLS with the test certificate; ImplicitTLS speaks TLS from the first byte.
	STARTTLS, ImplicitTLS bool
	// RejectRcpt answers 550 to RCPT TO for this address.
	RejectRcpt string
	// FailData answers 451 (try again later) to the first FailData messages.
	FailData int
	// ListenHost is the loopback address to listen on; 127.0.0.1 when empty.
	ListenHost string
}

// received is one message the server accepted.
type received struct {
	From   string
	To     []string
	Data   []byte
	User   string
	TLS    bool
	Helo   string
	Authed bool
}

// smtpServer is a real SMTP server (emersion/go-smtp) on a loopback port.
type smtpServer struct {
	Host string
	Port int
	opts serverOptions

	mu       sync.Mutex
	messages []received
	dataSeen int
	authFail int
}

var testCert = sync.OnceValues(newTestCert)

// newTestCert makes a self-signed certificate for 127.0.0.1 and localhost and a pool that trusts it.
func newTestCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "loopwork test SMTP"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// testRoots trusts the test certificate and nothing else.
func testRoots(t *testing.T) *x509.CertPool {
	t.Helper()
	cert, err := testCert()
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	return pool
}

func startSMTP(t *testing.T, o serverOptions) *smtpServer {
	t.Helper()
	if o.ListenHost == "" {
		o.ListenHost = "127.0.0.1"
	}
	s := &smtpServer{Host: o.ListenHost, opts: o}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{srv: s, conn: c}, nil
	}))
	srv.Domain = "mx.test"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	// Plain-text AUTH is what a local relay allows; the client decides whether it sends a password.
	srv.AllowInsecureAuth = !o.STARTTLS
	ln, err := net.Listen("tcp", net.JoinHostPort(o.ListenHost, "0"))
	if err != nil {
		t.Fatal(err)
	}
	if o.STARTTLS || o.ImplicitTLS {
		cert, err := testCert()
		if err != nil {
			t.Fatal(err)
		}
		tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}}
		if o.STARTTLS {
			srv.TLSConfig = tlsConfig
		} else {
			ln = tls.NewListener(ln, tlsConfig)
		}
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Messages returns what the server accepted so far.
func (s *smtpServer) Messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.messages...)
}

// AuthFailures counts rejected AUTH attempts.
func (s *smtpServer) AuthFailures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authFail
}

type session struct {
	srv  *smtpServer
	conn *smtp.Conn
	cur  received
}

func (ss *session) AuthMechanisms() []string {
	if ss.srv.opts.User == "" {
		return nil
	}
	if len(ss.srv.opts.Mechanisms) > 0 {
		return ss.srv.opts.Mechanisms
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	check := func(user, pass string) error {
		if user != ss.srv.opts.User || pass != ss.srv.opts.Pass {
			ss.srv.mu.Lock()
			ss.srv.authFail++
			ss.srv.mu.Unlock()
			return smtp.ErrAuthFailed
		}
		ss.cur.User, ss.cur.Authed = user, true
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.srv.opts.User != "" && !ss.cur.Authed {
		return smtp.ErrAuthRequired
	}
	ss.cur.From = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.EqualFold(to, ss.srv.opts.RejectRcpt) {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user here"}
	}
	ss.cur.To = append(ss.cur.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := ss.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dataSeen++
	if s.dataSeen <= s.opts.FailData {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "mailbox busy, try again later"}
	}
	m := ss.cur
	m.Data = b
	m.Helo = ss.conn.Hostname()
	_, m.TLS = ss.conn.TLSConnectionState()
	s.messages = append(s.messages, m)
	return nil
}

// Reset keeps the authentication: RSET clears only the message in progress.
func (ss *session) Reset() {
	ss.cur = received{User: ss.cur.User, Authed: ss.cur.Authed}
}

func (ss *session) Logout() error { return nil }

// loginServer is the server side of AUTH LOGIN (username, then password, each base64 on a line).
type loginServer struct {
	check      func(user, pass string) error
	user, step string
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	switch l.step {
	case "":
		l.step = "user"
		if response != nil {
			l.user, l.step = string(response), "pass"
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case "user":
		l.user, l.step = string(response), "pass"
		return []byte("Password:"), false, nil
	case "pass":
		return nil, true, l.check(l.user, string(response))
	}
	return nil, false, errors.New("unexpected LOGIN step")
}
