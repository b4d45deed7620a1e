package documents_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

type attempt struct {
	Status string          `db:"status"`
	Output json.RawMessage `db:"output"`
	Error  json.RawMessage `db:"error"`
}

// query runs a one-task flow with a sql_query on database_id and returns the task's last attempt.
func query(t *testing.T, env *testkit.Env, c *testkit.Caller, database uuid.UUID, sql string) attempt {
	t.Helper()
	return finish(t, env, c, start(t, c, database, sql))
}

// start starts a one-task flow with a sql_query on database_id and returns its execution's id.
func start(t *testing.T, c *testkit.Caller, database uuid.UUID, sql string) uuid.UUID {
	t.Helper()
	def, _ := json.Marshal(map[string]any{"version": 1, "edges": []any{}, "tasks": []any{map[string]any{
		"name": "q", "type": "sql_query", "parameters": map[string]any{"database_id": database.String(), "query": sql, "max_rows": 10000}}}})
	created, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "q", Definition: def})
	testkit.Expect(t, created, err, http.StatusCreated)
	started, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: created.JSON201.Id, Input: map[string]any{}})
	testkit.Expect(t, started, err, http.StatusCreated)
	return started.JSON201.Id
}

// finish waits for the execution to end and returns its task's last attempt.
func finish(t *testing.T, env *testkit.Env, c *testkit.Caller, execution uuid.UUID) attempt {
	t.Helper()
	testkit.WaitForExecution(t, c, execution, "completed", "failed")
	var a attempt
	if err := env.DB.Get(&a, `SELECT status, coalesce(output, 'null') AS output, coalesce(error, 'null') AS error
		FROM task_executions WHERE flow_execution_id = $1 ORDER BY task_execution_idx DESC LIMIT 1`, execution); err != nil {
		t.Fatal(err)
	}
	return a
}

// denied tells a refusal by PostgreSQL: a privilege, a read-only transaction, or a name that does not
// exist where the organization's role looks.
func denied(a attempt) bool {
	e := string(a.Error)
	return a.Status == "failed" && (strings.Contains(e, "denied") || strings.Contains(e, "read-only transaction") ||
		strings.Contains(e, "does not exist") || strings.Contains(e, "cross-database references"))
}

// TestSQLQueryIsolation: a sql_query task over a document reads the organization's document tables
// and nothing else — not loopwork's tables, not another organization's — and cannot write, create, or
// become another role: it runs in the organization's own database, as its own role, in a read-only
// transaction (the query text is not inspected). A result past the server's row ceiling is cut there,
// and a large one is stored as a file.
func TestSQLQueryIsolation(t *testing.T) {
	t.Parallel()
	env := testkit.NewProcessEnv(t, "LOOPWORK_SQL_MAX_ROWS=4000")
	orgA, orgB := env.Org(t), env.Org(t)
	a, b := env.User(t, orgA, auth.RoleAppUser), env.User(t, orgB, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, orgA, 100); err != nil {
		t.Fatal(err)
	}
	docA := newDoc(t, a, "secret a")
	imported(t, a, docA.Id, []byte("k,v\n1,apple\n2,pear\n"), platformapi.FileUploadCompleteRequest{})
	docB := newDoc(t, b, "secret b")
	imported(t, b, docB.Id, []byte("k,v\n1,theirs\n"), platformapi.FileUploadCompleteRequest{})

	ok := query(t, env, a, docA.Id, `SELECT k, v FROM secret_a ORDER BY k`)
	if ok.Status != "completed" || !strings.Contains(string(ok.Output), `"v": "pear"`) {
		t.Fatalf("own table: %s %s", ok.Output, ok.Error)
	}
	var schemaB string
	if err := env.DB.Get(&schemaB, `SELECT database_name FROM document_databases WHERE organization_id = $1`, orgB); err != nil {
		t.Fatal(err)
	}
	for _, attack := range []string{
		`SELECT * FROM public.users`,
		`SELECT * FROM public.credentials`,
		`SELECT * FROM public.river_job`,
		fmt.Sprintf(`SELECT * FROM %s.public.secret_b`, schemaB),
		`SELECT set_config('role', 'postgres', false)`,
		`SET ROLE postgres`,
		`SET SESSION AUTHORIZATION postgres`,
		`DO $$BEGIN EXECUTE 'SET ROLE postgres'; END$$`,
		`INSERT INTO secret_a VALUES ('3', 'plum')`,
		`CREATE TABLE secret_c (x int)`,
		`SELECT pg_read_file('PG_VERSION')`,
	} {
		got := query(t, env, a, docA.Id, attack)
		if !denied(got) {
			t.Errorf("%s: %s, output %s error %s", attack, got.Status, got.Output, got.Error)
		}
	}

	big := query(t, env, a, docA.Id, `SELECT g, repeat('x', 100) AS pad FROM generate_series(1, 5000) g`)
	var out struct {
		Rows     []any  `json:"rows"`
		RowCount int    `json:"row_count"`
		RowsURI  string `json:"rows_uri"`
	}
	json.Unmarshal(big.Output, &out)
	if big.Status != "completed" || out.RowCount != 4000 || len(out.Rows) != 0 || !strings.HasPrefix(out.RowsURI, "storage://task-outputs/") {
		t.Fatalf("large result: %.300s", big.Output)
	}
	link, err := a.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: out.RowsURI})
	testkit.Expect(t, link, err, http.StatusOK)
	var stored []map[string]any
	if err := json.Unmarshal([]byte(testkit.Download(t, link.JSON200.DownloadUrl)), &stored); err != nil || len(stored) != 4000 || stored[3999]["g"] != float64(4000) {
		t.Fatalf("stored rows: %d %v", len(stored), err)
	}
	other, err := b.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: out.RowsURI})
	testkit.Expect(t, other, err, http.StatusNotFound)
}
