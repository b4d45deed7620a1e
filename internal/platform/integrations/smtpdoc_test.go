package integrations_test

import (
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// authServer is a real SMTP server (emersion/go-smtp) on loopback that accepts one login.
func authServer(t *testing.T, user, password string) int {
	t.Helper()
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &authSession{user, password}, nil }))
	srv.Domain, srv.AllowInsecureAuth = "mx.test", true
	srv.ErrorLog = log.New(io.Discard, "", 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

type authSession struct{ user, password string }

func (s *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		if user != s.user || password != s.password {
			return errors.New("invalid credentials")
		}
		return nil
	}), nil
}
func (s *authSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *authSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *authSession) Data(io.Reader) error                 { return nil }
func (s *authSession) Reset()                               {}
func (s *authSession) Logout() error                        { return nil }

// TestMetadataOfEmailService: the SMTP server of an email_service credential is greeted through the
// guard, its offers listed and the login checked (a wrong one is a 502 that does not show it); a
// link-local host is refused.
func TestMetadataOfEmailService(t *testing.T) {
	t.Parallel()
	secret := "pw-" + uuid.NewString()
	port := authServer(t, "mailer", secret)
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlow(t, c, twoTasks)
	good := newCredential(t, c, "email_service", "user_password", map[string]any{"host": "127.0.0.1", "port": port, "username": "mailer", "password": secret})
	res, err := c.API.GetIntegrationMetadataWithResponse(ctx, integrate(t, c, flow, &good, "fetch").Id)
	testkit.Expect(t, res, err, http.StatusOK)
	if m := res.JSON200.Metadata; !strings.Contains(m, "AUTH PLAIN") || !strings.Contains(m, "Login: accepted for mailer") || strings.Contains(m, secret) {
		t.Fatalf("metadata: %s", m)
	}
	wrong := "wrong-" + uuid.NewString()
	bad := newCredential(t, c, "email_service", "user_password", map[string]any{"host": "127.0.0.1", "port": port, "username": "mailer", "password": wrong})
	refused, err := c.API.GetIntegrationMetadataWithResponse(ctx, integrate(t, c, flow, &bad, "shape").Id)
	testkit.Expect(t, refused, err, http.StatusBadGateway)
	if strings.Contains(string(refused.Body), wrong) || !strings.Contains(string(refused.Body), "refused the login") {
		t.Fatalf("wrong login: %s", refused.Body)
	}
	meta := newCredential(t, c, "email_service", "user_password", map[string]any{"host": "169.254.169.254", "port": 25, "username": "u", "password": "p"})
	blocked, err := c.API.GetIntegrationMetadataWithResponse(ctx, integrate(t, c, testkit.NewFlow(t, c, twoTasks), &meta, "fetch").Id)
	testkit.Expect(t, blocked, err, http.StatusBadRequest)
	if e := testkit.ErrorOf(t, blocked); *e.Code != "ssrf_blocked" {
		t.Fatalf("link-local: %s", blocked.Body)
	}
}

// TestMetadataOfDocumentTables: an internal_sql_database credential describes the organization's
// document tables (and no other organization's).
func TestMetadataOfDocumentTables(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	other := env.User(t, env.Org(t), auth.RoleAppUser)
	testkit.ImportCSV(t, c.API, "Price list", "sku,price\na,1\nb,2\n")
	testkit.ImportCSV(t, other.API, "Theirs", "secret\nx\n")
	flow := testkit.NewFlow(t, c, twoTasks)
	cred := newCredential(t, c, "internal_sql_database", "user_password", map[string]any{})
	res, err := c.API.GetIntegrationMetadataWithResponse(ctx, integrate(t, c, flow, &cred, "fetch").Id)
	testkit.Expect(t, res, err, http.StatusOK)
	if m := res.JSON200.Metadata; !strings.Contains(m, "Table price_list (document \"Price list\", 2 rows)\n  sku text\n  price text\n") ||
		strings.Contains(m, "theirs") {
		t.Fatalf("metadata: %s", m)
	}
}
