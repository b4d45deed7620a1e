package documents_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// tenant is what the server made for an organization's documents, read by the test as a superuser.
type tenant struct {
	Database string `db:"database_name"`
	Role     string `db:"role_name"`
}

func tenantOf(t *testing.T, env *testkit.Env, org uuid.UUID) tenant {
	t.Helper()
	var tn tenant
	if err := env.DB.Get(&tn, `SELECT database_name, role_name FROM document_databases WHERE organization_id = $1`, org); err != nil {
		t.Fatal(err)
	}
	return tn
}

// orgDB opens the organization's document database as the test cluster's superuser.
func orgDB(t *testing.T, env *testkit.Env, org uuid.UUID) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open("postgres", strings.Replace(testkit.ServerURL(t), "/postgres?", "/"+tenantOf(t, env, org).Database+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// connectAs opens database as role on the test cluster (trust authentication: only privileges decide).
func connectAs(t *testing.T, env *testkit.Env, database, role string) error {
	t.Helper()
	dsn := strings.Replace(testkit.ServerURL(t), "postgres@", role+"@", 1)
	dsn = strings.Replace(dsn, "/postgres?", "/"+database+"?", 1)
	db, err := sqlx.Open("postgres", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Ping()
}

// TestSQLQueryConfined: the attacks a hostile organization tried through sql_query when its role
// logged in to loopwork's own database, each now run against the organization's own database and
// each without effect on loopwork or on another organization.
func TestSQLQueryConfined(t *testing.T) {
	t.Parallel()
	env := testkit.NewProcessEnv(t, "LOOPWORK_SQL_STATEMENT_TIMEOUT=2s")
	orgA, orgB := env.Org(t), env.Org(t)
	a, b := env.User(t, orgA, auth.RoleAppUser), env.User(t, orgB, auth.RoleAppUser)
	for _, o := range []uuid.UUID{orgA, orgB} {
		if err := credits.Grant(ctx, env.DB, o, 100); err != nil {
			t.Fatal(err)
		}
	}
	docA := newDoc(t, a, "mine")
	imported(t, a, docA.Id, []byte("k,v\n1,apple\n"), platformapi.FileUploadCompleteRequest{})
	docB := newDoc(t, b, "people")
	imported(t, b, docB.Id, []byte("name,ssn_number\nann,123\n"), platformapi.FileUploadCompleteRequest{})
	ta, tb := tenantOf(t, env, orgA), tenantOf(t, env, orgB)
	var home string
	env.DB.Get(&home, `SELECT current_database()`)

	t.Run("names reveal no organization", func(t *testing.T) {
		got := query(t, env, a, docA.Id, `SELECT (SELECT string_agg(rolname, ',') FROM pg_roles) AS roles,
			(SELECT string_agg(datname, ',') FROM pg_database) AS databases`)
		for _, org := range []string{orgA.String(), orgB.String()} {
			hex := strings.ReplaceAll(org, "-", "")
			if got.Status != "completed" || strings.Contains(string(got.Output), hex) || strings.Contains(string(got.Output), org) {
				t.Errorf("%s in %s %s", org, got.Output, got.Error)
			}
		}
	})
	t.Run("catalogs show the organization's tables only", func(t *testing.T) {
		got := query(t, env, a, docA.Id, `SELECT (SELECT string_agg(relname, ',') FROM pg_class WHERE relnamespace = 'public'::regnamespace) AS tables,
			(SELECT string_agg(table_name || '.' || column_name, ',') FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')) AS columns,
			(SELECT string_agg(relname || ':' || n_live_tup, ',') FROM pg_stat_user_tables) AS stats`)
		out := string(got.Output)
		if got.Status != "completed" || !strings.Contains(out, "mine") || strings.Contains(out, "ssn_number") ||
			strings.Contains(out, "people") || strings.Contains(out, "users") || strings.Contains(out, "river_job") {
			t.Errorf("catalogs: %s %s", out, got.Error)
		}
	})
	t.Run("the role connects to its own database only", func(t *testing.T) {
		if err := connectAs(t, env, ta.Database, ta.Role); err != nil {
			t.Fatalf("own database: %v", err)
		}
		for _, other := range []string{home, tb.Database} {
			if err := connectAs(t, env, other, ta.Role); err == nil || !strings.Contains(err.Error(), "permission denied") {
				t.Errorf("%s: %v", other, err)
			}
		}
		var limit int
		env.DB.Get(&limit, `SELECT rolconnlimit FROM pg_roles WHERE rolname = $1`, ta.Role)
		if limit != 5 {
			t.Errorf("connection limit %d", limit)
		}
	})
	t.Run("loopwork's signing-key lock stays free", func(t *testing.T) {
		exec := start(t, a, docA.Id, `SELECT pg_advisory_lock(hashtext('loopwork signing keys')), pg_sleep(1.5)`)
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int
			env.DB.Get(&n, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND query LIKE '%pg_advisory_lock%'`, ta.Role)
			if n > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		began := time.Now()
		var free bool
		if err := env.DB.Get(&free, `SELECT pg_try_advisory_xact_lock(hashtext('loopwork signing keys'))`); err != nil || !free {
			t.Errorf("loopwork's lock: %v %v", free, err)
		}
		c := env.User(t, orgB, auth.RoleAppUser)
		res, err := c.API.ListDocumentsWithResponse(ctx, nil)
		testkit.Expect(t, res, err, http.StatusOK)
		if time.Since(began) > time.Second {
			t.Errorf("sign-in took %s", time.Since(began))
		}
		finish(t, env, a, exec)
	})
	t.Run("River's control channel is out of reach", func(t *testing.T) {
		query(t, env, a, docA.Id, `SELECT pg_notify('river_control', '{"action":"pause","queue":"*"}'),
			pg_notify('river_leadership', '{"action":"resigned","leader_id":"x"}')`)
		if got := query(t, env, b, docB.Id, `SELECT count(*) AS n FROM people`); got.Status != "completed" {
			t.Fatalf("a later task: %s %s", got.Status, got.Error)
		}
		var paused int
		env.DB.Get(&paused, `SELECT count(*) FROM river_queue WHERE paused_at IS NOT NULL`)
		if paused != 0 {
			t.Errorf("%d queues paused", paused)
		}
	})
	t.Run("nothing outlives the statement", func(t *testing.T) {
		for _, q := range []string{`SELECT lo_create(0)`, `ALTER ROLE CURRENT_USER SET statement_timeout = 0`,
			`SELECT set_config('statement_timeout', '0', false)`} {
			query(t, env, a, docA.Id, q)
		}
		owner := orgDB(t, env, orgA)
		var objects int
		if err := owner.Get(&objects, `SELECT count(*) FROM pg_largeobject_metadata`); err != nil || objects != 0 {
			t.Errorf("large objects: %d %v", objects, err)
		}
		var settings string
		env.DB.Get(&settings, `SELECT array_to_string(setconfig, ',') FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole
			WHERE r.rolname = $1`, ta.Role)
		if !strings.Contains(settings, "statement_timeout=2000") {
			t.Errorf("role settings: %s", settings)
		}
		got := query(t, env, a, docA.Id, `SELECT set_config('statement_timeout', '0', false), pg_sleep(4)`)
		if got.Status != "failed" || !strings.Contains(string(got.Error), "time limit") {
			t.Errorf("a statement past the timeout: %s %s", got.Status, got.Error)
		}
	})
	t.Run("exactly one statement", func(t *testing.T) {
		got := query(t, env, a, docA.Id, `SELECT 1; COMMIT; SELECT 2`)
		if got.Status != "failed" || !strings.Contains(string(got.Error), "exactly one SQL statement") {
			t.Errorf("%s %s", got.Status, got.Error)
		}
		if got := query(t, env, a, docA.Id, `SELECT 1 AS one;`); got.Status != "completed" {
			t.Errorf("one statement with a semicolon: %s", got.Error)
		}
	})
}

// TestDocumentQuota: an import that would take the organization's tables past its quota is refused,
// when the upload is completed (the file alone is too large) and by the import itself (the table it
// wrote is), with a message that says so; the previous data stays.
func TestDocumentQuota(t *testing.T) {
	t.Parallel()
	env := testkit.NewProcessEnv(t, "LOOPWORK_DOCUMENTS_QUOTA_MB=1")
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	doc := newDoc(t, c, "big")
	imported(t, c, doc.Id, []byte("k\n1\n"), platformapi.FileUploadCompleteRequest{})

	big := []byte("k,v\n" + strings.Repeat("123456789,abcdefghi\n", 60000)) // 1.2 MB
	up := upload(t, c, doc.Id, big)
	res, err := c.API.CompleteDocumentUploadWithResponse(ctx, doc.Id, platformapi.FileUploadCompleteRequest{UploadId: up.UploadId})
	testkit.Expect(t, res, err, http.StatusRequestEntityTooLarge)
	if !strings.Contains(string(res.Body), "quota") {
		t.Errorf("refusal: %s", res.Body)
	}

	small := []byte("k\n" + strings.Repeat("1\n", 200000)) // 400 KB of file, several MB of table
	up = upload(t, c, doc.Id, small)
	res, err = c.API.CompleteDocumentUploadWithResponse(ctx, doc.Id, platformapi.FileUploadCompleteRequest{UploadId: up.UploadId})
	testkit.Expect(t, res, err, http.StatusAccepted)
	got := wait(t, c, doc.Id)
	if got.Status != platformapi.DocumentFileStatusFailed || got.Error == nil || !strings.Contains(*got.Error, "quota of 1.0 MB") {
		t.Fatalf("import past the quota: %s %v", got.Status, got.Error)
	}
	if r := rows(t, c, doc.Id, 1, 10); len(r.Rows) != 1 {
		t.Errorf("previous data: %v", r.Rows)
	}
}
