package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"

	gomail "github.com/wneessen/go-mail"
	gosmtp "github.com/wneessen/go-mail/smtp"
)

// conversation is one Send's connection and how far it got, for closing on cancellation and for
// naming the stage that failed.
type conversation struct {
	mu    sync.Mutex
	conn  net.Conn
	stage string
}

func (c *conversation) setStage(stage string) {
	c.mu.Lock()
	c.stage = stage
	c.mu.Unlock()
}

func (c *conversation) currentStage() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stage
}

// close ends the connection; go-mail does not close it when the greeting, STARTTLS or AUTH fails.
func (c *conversation) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
	}
}

// dialer connects, and for implicit TLS completes the handshake, within the default dial timeout.
// It returns the *tls.Conn itself so go-mail sees the connection as encrypted.
func (c *conversation) dialer(implicitTLS bool, cfg *tls.Config) gomail.DialContextFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		d := net.Dialer{Timeout: dialTimeout}
		conn, err := d.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		if implicitTLS {
			c.setStage("TLS handshake")
			tc := tls.Client(conn, cfg)
			hctx, cancel := context.WithTimeout(ctx, dialTimeout)
			defer cancel()
			if err := tc.HandshakeContext(hctx); err != nil {
				_ = conn.Close()
				return nil, err
			}
			conn = tc
		}
		c.mu.Lock()
		c.conn = conn
		c.stage = "greeting (EHLO)"
		if !implicitTLS && cfg != nil {
			c.stage = "greeting (EHLO) or STARTTLS"
		}
		c.mu.Unlock()
		return conn, nil
	}
}

// plainOrLogin authenticates with PLAIN, or with LOGIN when the server offers only that. Like
// net/smtp it refuses to send the password over an unencrypted connection, except to a relay on
// localhost: "none" is for local relays, and a password in clear text across a network is a leak.
type plainOrLogin struct {
	user, pass, host string
	conv             *conversation
	inner            gosmtp.Auth
}

func (a *plainOrLogin) Start(server *gosmtp.ServerInfo) (string, []byte, error) {
	a.conv.setStage("authentication")
	switch {
	case slices.Contains(server.Auth, "PLAIN"):
		a.inner = gosmtp.PlainAuth("", a.user, a.pass, a.host, false)
	case slices.Contains(server.Auth, "LOGIN"):
		a.inner = gosmtp.LoginAuth(a.user, a.pass, a.host, false)
	case len(server.Auth) == 0:
		return "", nil, errors.New("a username is configured but the server offers no SMTP AUTH (it may offer it only after STARTTLS)")
	default:
		return "", nil, fmt.Errorf("the server offers AUTH %s; loopwork speaks PLAIN and LOGIN", strings.Join(server.Auth, " "))
	}
	proto, resp, err := a.inner.Start(server)
	if errors.Is(err, gosmtp.ErrUnencrypted) {
		err = errors.New("refusing to send the password over an unencrypted connection (TLS mode none allows AUTH only to localhost)")
	}
	return proto, resp, err
}

func (a *plainOrLogin) Next(fromServer []byte, more bool) ([]byte, error) {
	return a.inner.Next(fromServer, more)
}
