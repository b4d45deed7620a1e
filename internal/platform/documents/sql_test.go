package documents_test

import (
	"database/sql"
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

// TestSQLDocument: a sql document reads a table of a registered database (a second real PostgreSQL
// server) live, in primary-key order, with values as JSON scalars; it has no file and takes no upload;
// unknown and unsuitable credentials are refused.
func TestSQLDocument(t *testing.T) {
	t.Parallel()
	otherURL := testkit.OtherPostgres(t)
	other, err := sql.Open("postgres", otherURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	table := "people_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	if _, err := other.Exec(`CREATE TABLE ` + table + ` (id int PRIMARY KEY, name text, active boolean, score float8, price numeric);
		INSERT INTO ` + table + ` SELECT i, 'p' || i, i % 2 = 0, NULL, i * 1.25 FROM generate_series(5, 1, -1) i`); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(otherURL)
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	reg, err := c.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: u.Hostname(), Port: u.Port(),
		Username: "postgres", Password: new("unused"), Database: "postgres"})
	testkit.Expect(t, reg, err, http.StatusCreated)
	sqlType := platformapi.DocumentFileCreateRequestDatabaseTypeSql
	res, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "people", DatabaseType: &sqlType,
		CredentialId: &reg.JSON201.Id, TableName: new("public." + table)})
	testkit.Expect(t, res, err, http.StatusCreated)
	doc := res.JSON201
	if doc.Status != platformapi.DocumentFileStatusReady || *doc.CredentialId != reg.JSON201.Id || *doc.CurrentTableName != "public."+table {
		t.Fatalf("created %s", res.Body)
	}
	cols, err := c.API.ListDocumentColumnsWithResponse(ctx, doc.Id)
	testkit.Expect(t, cols, err, http.StatusOK)
	if strings.Join(cols.JSON200.Columns, ",") != "id,name,active,score,price" {
		t.Fatalf("columns %s", cols.Body)
	}
	page := rows(t, c, doc.Id, 2, 2)
	if page.Total != 5 || len(page.Rows) != 2 || page.Rows[0][0] != float64(3) || page.Rows[0][1] != "p3" ||
		page.Rows[1][2] != true || page.Rows[0][3] != nil || page.Rows[0][4] != 3.75 {
		t.Fatalf("rows %+v", page)
	}
	dl, err := c.API.GetDocumentDownloadUrlWithResponse(ctx, doc.Id)
	testkit.Expect(t, dl, err, http.StatusConflict)
	ct, body := form([]byte("a\n1\n"))
	up, err := c.API.StartDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, up, err, http.StatusConflict)
	if e := testkit.ErrorOf(t, up); e.Code == nil || *e.Code != "not_csv" {
		t.Fatalf("upload to a sql document: %s", up.Body)
	}

	unknown, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "x", DatabaseType: &sqlType,
		CredentialId: new(uuid.New()), TableName: new("t")})
	testkit.Expect(t, unknown, err, http.StatusNotFound)
	noTable, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "x", DatabaseType: &sqlType,
		CredentialId: &reg.JSON201.Id})
	testkit.Expect(t, noTable, err, http.StatusUnprocessableEntity)
	missing, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "missing", DatabaseType: &sqlType,
		CredentialId: &reg.JSON201.Id, TableName: new("no_such_table")})
	testkit.Expect(t, missing, err, http.StatusCreated)
	gone, err := c.API.ListDocumentRowsWithResponse(ctx, missing.JSON201.Id, nil)
	testkit.Expect(t, gone, err, http.StatusBadGateway)
	// The credential a document reads through cannot be deleted under it.
	del, err := c.API.DeleteSqlDatabaseWithResponse(ctx, reg.JSON201.Id)
	testkit.Expect(t, del, err, http.StatusConflict)
}
