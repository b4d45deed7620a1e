package documents_test

import (
	"database/sql"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// counted forwards TCP connections to target and counts them, so that a test can tell that the server
// did not even connect.
func counted(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	return l.Addr().String(), &n
}

// TestSQLDocumentCredentialRights: an app_user cannot make an admin's private sql_database credential
// readable through a sql document (the 404 of an unknown credential); once the admin shares it the
// document is created and read, by the rows route and by sql_query tasks; once it is unshared again,
// both refuse without connecting to the database, whoever reads.
func TestSQLDocumentCredentialRights(t *testing.T) {
	t.Parallel()
	otherURL := testkit.OtherPostgres(t)
	other, err := sql.Open("postgres", otherURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	table := "payroll_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	if _, err := other.Exec(`CREATE TABLE ` + table + ` (id int PRIMARY KEY, salary int);
		INSERT INTO ` + table + ` VALUES (1, 90000), (2, 120000)`); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(otherURL)
	addr, connections := counted(t, u.Host)
	host, port, _ := net.SplitHostPort(addr)
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	org := env.Org(t)
	if err := credits.Grant(ctx, env.DB, org, 100); err != nil {
		t.Fatal(err)
	}
	admin, user := env.User(t, org, auth.RoleOrgAdmin), env.User(t, org, auth.RoleAppUser)
	reg, err := admin.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: host, Port: port,
		Username: "postgres", Password: new("unused"), Database: "postgres"})
	testkit.Expect(t, reg, err, http.StatusCreated)
	private := reg.JSON201.Id
	sqlType := platformapi.DocumentFileCreateRequestDatabaseTypeSql
	create := func(name string, cred uuid.UUID) (*platformapi.CreateDocumentResponse, error) {
		return user.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: name, DatabaseType: &sqlType,
			CredentialId: &cred, TableName: new("public." + table)})
	}

	stolen, err := create("stolen", private)
	missing, err2 := create("missing", uuid.New())
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	testkit.SameAsMissing(t, stolen, missing)
	if connections.Load() != 0 {
		t.Fatalf("a refused document connected %d times", connections.Load())
	}

	share := func(shared bool) {
		t.Helper()
		res, err := admin.API.UpdateCredentialWithResponse(ctx, private, platformapi.CredentialUpdateRequest{Shared: &shared})
		testkit.Expect(t, res, err, http.StatusOK)
	}
	share(true)
	doc, err := create("payroll", private)
	testkit.Expect(t, doc, err, http.StatusCreated)
	if page := rows(t, user, doc.JSON201.Id, 1, 10); page.Total != 2 || page.Rows[1][1] != float64(120000) {
		t.Fatalf("rows through the shared credential: %+v", page)
	}
	ran := query(t, env, user, doc.JSON201.Id, `SELECT max(salary) AS top FROM `+table)
	if ran.Status != "completed" || !strings.Contains(string(ran.Output), "120000") {
		t.Fatalf("sql_query through the shared credential: %s %s", ran.Output, ran.Error)
	}

	share(false)
	before := connections.Load()
	for _, c := range []*testkit.Caller{user, admin} {
		res, err := c.API.ListDocumentRowsWithResponse(ctx, doc.JSON201.Id, nil)
		testkit.Expect(t, res, err, http.StatusConflict)
		if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "credential_not_usable" {
			t.Fatalf("rows after unsharing: %s", res.Body)
		}
		cols, err := c.API.ListDocumentColumnsWithResponse(ctx, doc.JSON201.Id)
		testkit.Expect(t, cols, err, http.StatusConflict)
	}
	refused := query(t, env, user, doc.JSON201.Id, `SELECT max(salary) AS top FROM `+table)
	if refused.Status != "failed" || !strings.Contains(string(refused.Error), "may no longer be used") {
		t.Fatalf("sql_query after unsharing: %s %s", refused.Output, refused.Error)
	}
	if n := connections.Load(); n != before {
		t.Fatalf("reads after unsharing connected %d times", n-before)
	}

	// The admin may use the private credential, so a document the admin creates over it is read by every
	// member: creating a sql document is what shares the table.
	own, err := admin.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "admin's", DatabaseType: &sqlType,
		CredentialId: &private, TableName: new("public." + table)})
	testkit.Expect(t, own, err, http.StatusCreated)
	if page := rows(t, user, own.JSON201.Id, 1, 10); page.Total != 2 {
		t.Fatalf("rows of the admin's document: %+v", page)
	}
}
