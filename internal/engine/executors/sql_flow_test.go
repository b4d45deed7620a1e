package executors_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	_ "github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// runAs runs a one-task flow as the caller and waits until its execution ends.
func runAs(t *testing.T, env *testkit.Env, c *testkit.Caller, task string) uuid.UUID {
	t.Helper()
	created, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "sql",
		Definition: json.RawMessage(`{"version": 1, "tasks": [` + task + `], "edges": []}`)})
	testkit.Expect(t, created, err, http.StatusCreated)
	started, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: created.JSON201.Id,
		Input: map[string]any{"min": 2}})
	testkit.Expect(t, started, err, http.StatusCreated)
	testkit.WaitForExecution(t, c, started.JSON201.Id, "completed", "failed")
	return started.JSON201.Id
}

// TestSQLQueryOnARegisteredDatabase: sql_query tasks read with bound parameters and a row limit, write
// and report the rows affected, and fail at once (no retry) for a statement error or a database the
// organization does not have — against a second real PostgreSQL server.
func TestSQLQueryOnARegisteredDatabase(t *testing.T) {
	t.Parallel()
	otherURL := testkit.OtherPostgres(t)
	other, err := sql.Open("postgres", otherURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`CREATE TABLE items (id int PRIMARY KEY, name text, price numeric, seen timestamptz);
		INSERT INTO items SELECT i, 'item ' || i, i * 1.5, '2026-01-02T03:04:05Z' FROM generate_series(1, 5) i`); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(otherURL)
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 20); err != nil {
		t.Fatal(err)
	}
	reg, err := c.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: u.Hostname(), Port: u.Port(),
		Username: "postgres", Password: new("unused"), Database: "postgres"})
	testkit.Expect(t, reg, err, http.StatusCreated)
	db := reg.JSON201.Id.String()

	read := runAs(t, env, c, fmt.Sprintf(`{"name": "q", "type": "sql_query", "parameters": {"database_id": %q,
		"query": "SELECT id, name, price, seen FROM items WHERE id >= $1 ORDER BY id", "parameters": [2], "max_rows": 2}}`, db))
	atts := attemptsOf(t, env, read, "q")
	if len(atts) != 1 || atts[0].Status != "completed" {
		t.Fatalf("read: %+v", atts)
	}
	var out struct {
		Rows     []map[string]any `json:"rows"`
		RowCount int              `json:"row_count"`
	}
	json.Unmarshal(atts[0].Output, &out)
	if out.RowCount != 2 || out.Rows[0]["id"] != float64(2) || out.Rows[0]["name"] != "item 2" || out.Rows[0]["price"] != "3.0" ||
		out.Rows[1]["seen"] != "2026-01-02T03:04:05Z" {
		t.Fatalf("read output %s", atts[0].Output)
	}

	write := runAs(t, env, c, fmt.Sprintf(`{"name": "q", "type": "sql_query", "parameters": {"database_id": %q,
		"query": "UPDATE items SET name = upper(name) WHERE id <= $1", "parameters": [3]}}`, db))
	atts = attemptsOf(t, env, write, "q")
	out.RowCount = 0
	if len(atts) != 1 || json.Unmarshal(atts[0].Output, &out) != nil || out.RowCount != 3 {
		t.Fatalf("write: %+v", atts)
	}
	// The parameter was bound, not spliced: a value that looks like SQL is only a value.
	var upper int
	other.QueryRow(`SELECT count(*) FROM items WHERE name LIKE 'ITEM%'`).Scan(&upper)
	if upper != 3 {
		t.Fatalf("%d rows updated", upper)
	}

	for name, task := range map[string]string{
		"statement error": fmt.Sprintf(`{"name": "q", "type": "sql_query", "parameters": {"database_id": %q, "query": "SELEKT 1"},
			"retry": {"max_attempts": 3}}`, db),
		"several statements": fmt.Sprintf(`{"name": "q", "type": "sql_query", "parameters": {"database_id": %q,
			"query": "UPDATE items SET name = 'x'; COMMIT; SELECT 2"}, "retry": {"max_attempts": 3}}`, db),
	} {
		x := runAs(t, env, c, task)
		if atts := attemptsOf(t, env, x, "q"); len(atts) != 1 || atts[0].Status != "failed" {
			t.Fatalf("%s: %+v", name, atts)
		} else if name == "several statements" && !strings.Contains(string(atts[0].Error), "exactly one SQL statement") {
			t.Fatalf("%s: %s", name, atts[0].Error)
		}
	}
	// None of the several statements ran.
	var renamed int
	other.QueryRow(`SELECT count(*) FROM items WHERE name = 'x'`).Scan(&renamed)
	if renamed != 0 {
		t.Fatalf("%d rows renamed by a refused text", renamed)
	}
}
