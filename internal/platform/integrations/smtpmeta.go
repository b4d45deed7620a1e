package integrations

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopwork/loopwork/internal/netguard"
)

// describeSMTP greets the SMTP server of an email_service credential through the guard, lists what it
// offers, upgrades to TLS when it offers STARTTLS (the certificate is verified), and, when the
// credential has a login, checks that the server accepts it. Nothing is sent.
func describeSMTP(ctx context.Context, t Target) (string, error) {
	d := t.Secret.Data
	host := strOf(d["host"])
	if host == "" {
		return describeProvider(ctx, t)
	}
	port := 587
	if p, ok := d["port"].(float64); ok {
		port = int(p)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := t.Guard.DialContext(ctx, "tcp", addr)
	if err != nil {
		if errors.Is(err, netguard.ErrBlocked) {
			return "", err
		}
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return "", fmt.Errorf("%w: not an SMTP server: %s", ErrUpstream, redact(err, d))
	}
	defer c.Close()
	if err := c.Hello("loopwork"); err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SMTP server %s\n", addr)
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return "", fmt.Errorf("%w: STARTTLS failed: %s", ErrUpstream, redact(err, d))
		}
		b.WriteString("TLS: STARTTLS, certificate verified\n")
	} else {
		b.WriteString("TLS: not offered\n")
	}
	var offers []string
	for _, ext := range []string{"AUTH", "SIZE", "8BITMIME", "SMTPUTF8", "PIPELINING", "DSN"} {
		if ok, param := c.Extension(ext); ok {
			offers = append(offers, strings.TrimSpace(ext+" "+param))
		}
	}
	sort.Strings(offers)
	fmt.Fprintf(&b, "Extensions: %s\n", strings.Join(offers, ", "))
	user, password := strOf(d["username"]), strOf(d["password"])
	if password == "" && strOf(d["api_key"]) != "" {
		user, password = "apikey", strOf(d["api_key"])
	}
	if ok, _ := c.Extension("AUTH"); ok && password != "" {
		if err := c.Auth(smtp.PlainAuth("", user, password, host)); err != nil {
			return "", fmt.Errorf("%w: the server refused the login: %s", ErrUpstream, redact(err, d))
		}
		fmt.Fprintf(&b, "Login: accepted for %s\n", user)
	}
	_ = c.Quit()
	return b.String(), nil
}
