package sqldatabases_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// TestRegisterAndTest: a database on a second real PostgreSQL server is registered (without showing its
// secret), listed, tested (SELECT 1 and its version), refused twice, and its failures are reported as
// such; tenancy and roles hold.
func TestRegisterAndTest(t *testing.T) {
	t.Parallel()
	other, err := url.Parse(testkit.OtherPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	secret := "pw-" + uuid.NewString()
	req := platformapi.SqlDatabaseCreateRequest{Host: other.Hostname(), Port: other.Port(), Username: "postgres", Password: new(secret), Database: "postgres"}
	res, err := c.API.CreateSqlDatabaseWithResponse(ctx, req)
	testkit.Expect(t, res, err, http.StatusCreated)
	db := res.JSON201
	if strings.Contains(string(res.Body), secret) || db.Name != "postgres@"+other.Hostname()+":"+other.Port()+"/postgres" ||
		db.HasConnectionString || db.UserId == nil || *db.UserId != c.UserID {
		t.Fatalf("registered %s", res.Body)
	}
	dup, err := c.API.CreateSqlDatabaseWithResponse(ctx, req)
	testkit.Expect(t, dup, err, http.StatusConflict)

	ok, err := c.API.TestSqlDatabaseConnectionWithResponse(ctx, db.Id)
	testkit.Expect(t, ok, err, http.StatusOK)
	if !ok.JSON200.Success || ok.JSON200.ServerVersion == nil || *ok.JSON200.ServerVersion == "" || ok.JSON200.LatencyMs == nil {
		t.Fatalf("test: %s", ok.Body)
	}
	// A database that does not exist, and a port nothing listens on, fail with the reason.
	missingDB := req
	missingDB.Database = "nope"
	bad, err := c.API.CreateSqlDatabaseWithResponse(ctx, missingDB)
	testkit.Expect(t, bad, err, http.StatusCreated)
	failed, err := c.API.TestSqlDatabaseConnectionWithResponse(ctx, bad.JSON201.Id)
	testkit.Expect(t, failed, err, http.StatusOK)
	if failed.JSON200.Success || !strings.Contains(failed.JSON200.Message, "nope") || strings.Contains(string(failed.Body), secret) {
		t.Fatalf("missing database: %s", failed.Body)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	closed := req
	closed.Port, closed.Database = itoa(closedPort), "x"
	cl, err := c.API.CreateSqlDatabaseWithResponse(ctx, closed)
	testkit.Expect(t, cl, err, http.StatusCreated)
	refused, err := c.API.TestSqlDatabaseConnectionWithResponse(ctx, cl.JSON201.Id)
	testkit.Expect(t, refused, err, http.StatusOK)
	if refused.JSON200.Success {
		t.Fatalf("a closed port succeeded: %s", refused.Body)
	}

	// The connection string is used when given, and must name the same host and port.
	withCS := req
	withCS.Database = "template1"
	withCS.ConnectionString = new("postgres://postgres:" + secret + "@" + other.Host + "/template1?sslmode=disable")
	cs, err := c.API.CreateSqlDatabaseWithResponse(ctx, withCS)
	testkit.Expect(t, cs, err, http.StatusCreated)
	if !cs.JSON201.HasConnectionString || strings.Contains(string(cs.Body), secret) {
		t.Fatalf("with a connection string: %s", cs.Body)
	}
	if r, err := c.API.TestSqlDatabaseConnectionWithResponse(ctx, cs.JSON201.Id); err != nil || !r.JSON200.Success {
		t.Fatalf("test with a connection string: %v %s", err, r.Body)
	}
	elsewhere := withCS
	elsewhere.Database, elsewhere.ConnectionString = "x2", new("postgres://u@10.0.0.1:5432/x2")
	mismatch, err := c.API.CreateSqlDatabaseWithResponse(ctx, elsewhere)
	testkit.Expect(t, mismatch, err, http.StatusUnprocessableEntity)

	list, err := c.API.ListSqlDatabasesWithResponse(ctx, &platformapi.ListSqlDatabasesParams{Limit: new(2)})
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 4 || len(list.JSON200.SqlDatabases) != 2 || list.JSON200.SqlDatabases[0].Id != cs.JSON201.Id ||
		strings.Contains(string(list.Body), secret) {
		t.Fatalf("list %s", list.Body)
	}

	// Tenancy: another organization's database is a random id to it.
	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	missing, err := stranger.API.GetSqlDatabaseWithResponse(ctx, uuid.New())
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, _ := stranger.API.GetSqlDatabaseWithResponse(ctx, db.Id)
	testkit.SameAsMissing(t, hidden, missing)
	hiddenTest, _ := stranger.API.TestSqlDatabaseConnectionWithResponse(ctx, db.Id)
	testkit.SameAsMissing(t, hiddenTest, missing)
	hiddenDel, _ := stranger.API.DeleteSqlDatabaseWithResponse(ctx, db.Id)
	testkit.SameAsMissing(t, hiddenDel, missing)

	// Deletion: not by another user; not while an integration uses it; then by its owner.
	colleague := env.User(t, org, auth.RoleAppUser)
	denied, err := colleague.API.DeleteSqlDatabaseWithResponse(ctx, db.Id)
	testkit.Expect(t, denied, err, http.StatusForbidden)
	flow, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "f", Definition: json.RawMessage(
		`{"version":1,"tasks":[{"name":"q","type":"transform","parameters":{"expression":"."}}],"edges":[]}`)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	in, err := c.API.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow.JSON201.Id, CredentialId: &db.Id, TaskName: "q"})
	testkit.Expect(t, in, err, http.StatusCreated)
	inUse, err := c.API.DeleteSqlDatabaseWithResponse(ctx, db.Id)
	testkit.Expect(t, inUse, err, http.StatusConflict)
	gone, err := c.API.DeleteIntegrationWithResponse(ctx, in.JSON201.Id)
	testkit.Expect(t, gone, err, http.StatusNoContent)
	del, err := c.API.DeleteSqlDatabaseWithResponse(ctx, db.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)

	// Tests are limited to 30 a minute per organization. The limiter counts in fixed windows, so the four
	// made above may fall in the window before; 31 more, away from a window's end, pass the limit either way.
	testkit.AwayFromMinuteBoundary()
	limited := false
	for i := 0; i < 31 && !limited; i++ {
		r, err := c.API.TestSqlDatabaseConnectionWithResponse(ctx, cs.JSON201.Id)
		if err != nil {
			t.Fatal(err)
		}
		limited = r.StatusCode() == http.StatusTooManyRequests && r.HTTPResponse.Header.Get("Retry-After") != ""
	}
	if !limited {
		t.Fatal("31 tests within ten seconds were all allowed")
	}
}

// TestRefusesPrivateHosts: without an allow-list, loopback, link-local, private ranges and names that
// resolve to them are refused at registration (400 ssrf_blocked); a name that resolves to nothing is 400.
func TestRefusesPrivateHosts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	for _, host := range []string{"127.0.0.1", "169.254.169.254", "10.1.2.3", "192.168.1.1", "172.16.0.5", "localhost", "::1"} {
		res, err := c.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: host, Port: "5432",
			Username: "u", Password: new("p"), Database: "d"})
		testkit.Expect(t, res, err, http.StatusBadRequest)
		if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "ssrf_blocked" {
			t.Fatalf("%s: %s", host, res.Body)
		}
	}
	nowhere, err := c.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "no-such-host.invalid", Port: "5432",
		Username: "u", Password: new("p"), Database: "d"})
	testkit.Expect(t, nowhere, err, http.StatusBadRequest)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	forbidden, err := staff.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "example.com", Port: "5432",
		Username: "u", Password: new("p"), Database: "d"})
	testkit.Expect(t, forbidden, err, http.StatusForbidden)
	badPort, err := c.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "example.com", Port: "70000",
		Username: "u", Password: new("p"), Database: "d"})
	testkit.Expect(t, badPort, err, http.StatusUnprocessableEntity)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
