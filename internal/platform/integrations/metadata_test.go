package integrations_test

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// sqlTarget is the test database server as a tenant's sql_database credential names it, with a
// table of its own to describe.
func sqlTarget(t *testing.T, env *testkit.Env) map[string]any {
	t.Helper()
	u, err := url.Parse(testkit.DSN(t, env.DB))
	if err != nil {
		t.Fatal(err)
	}
	table := "meta_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	env.DB.MustExec(`CREATE TABLE ` + table + ` (id bigint, label text)`)
	t.Cleanup(func() { env.DB.Exec(`DROP TABLE ` + table) })
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 5432
	}
	pw, _ := u.User.Password()
	if pw == "" {
		pw = "unused-" + uuid.NewString()
	}
	return map[string]any{"host": u.Hostname(), "port": port, "database": strings.TrimPrefix(u.Path, "/"),
		"username": u.User.Username(), "password": pw, "sslmode": "disable", "_table": table}
}

// TestMetadataOfSQLDatabase: tables and columns are read live through the credential when the host is
// allowed; refused (400 ssrf_blocked) when it is not; 502 when nothing answers.
func TestMetadataOfSQLDatabase(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.OutboundAllow = "127.0.0.0/8,::1/128"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlow(t, c, twoTasks)
	data := sqlTarget(t, env)
	if ip := net.ParseIP(data["host"].(string)); ip == nil || !ip.IsLoopback() {
		t.Skip("the test database is not on loopback; the allow-list here covers only loopback")
	}
	table := data["_table"].(string)
	delete(data, "_table")
	cred := newCredential(t, c, "sql_database", "user_password", data)
	in := integrate(t, c, flow, &cred, "fetch")
	res, err := c.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
	testkit.Expect(t, res, err, http.StatusOK)
	if m := res.JSON200.Metadata; !strings.Contains(m, "Table public."+table+"\n  id bigint\n  label text\n") {
		t.Fatalf("metadata: %s", m)
	}
	if strings.Contains(string(res.Body), data["password"].(string)) {
		t.Fatal("the metadata shows the password")
	}

	// Nothing listens on this port of an allowed host.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	down := map[string]any{"host": "127.0.0.1", "port": closed, "database": "x", "username": "u", "password": "p-" + uuid.NewString()}
	downIn := integrate(t, c, flow, new(newCredential(t, c, "sql_database", "user_password", down)), "shape")
	gone, err := c.API.GetIntegrationMetadataWithResponse(ctx, downIn.Id)
	testkit.Expect(t, gone, err, http.StatusBadGateway)
	if e := testkit.ErrorOf(t, gone); e.Code == nil || *e.Code != "upstream_unavailable" || strings.Contains(string(gone.Body), down["password"].(string)) {
		t.Fatalf("502: %s", gone.Body)
	}
}

// TestMetadataRefusesPrivateTargets: loopback without the allow-list, link-local metadata addresses,
// private ranges and names that resolve to them answer 400 ssrf_blocked.
func TestMetadataRefusesPrivateTargets(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlow(t, c, twoTasks)
	for i, host := range []string{"127.0.0.1", "169.254.169.254", "10.1.2.3", "192.168.0.1", "localhost", "::1"} {
		cred := newCredential(t, c, "sql_database", "user_password", map[string]any{"host": host, "database": "d",
			"username": "u", "password": "p"})
		in := integrate(t, c, flow, &cred, "t"+strconv.Itoa(i))
		res, err := c.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
		testkit.Expect(t, res, err, http.StatusBadRequest)
		if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "ssrf_blocked" {
			t.Fatalf("%s: %s", host, res.Body)
		}
	}
	// Providers with nothing to list describe themselves.
	cred := newCredential(t, c, "vendor_b", "api_key", map[string]any{"api_key": "k-" + uuid.NewString()})
	in := integrate(t, c, flow, &cred, "vendor")
	res, err := c.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
	testkit.Expect(t, res, err, http.StatusOK)
	if !strings.Contains(res.JSON200.Metadata, "Provider: vendor_b\nCredential type: api_key") {
		t.Fatalf("metadata: %s", res.JSON200.Metadata)
	}
}
