package documents_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLegacySchemaMoves: documents an earlier version imported into a schema of loopwork's own database
// keep working after the upgrade. Migration 92 takes LOGIN from the old role at once; the server then
// moves the table to the organization's new database and drops the old schema, the role and its row,
// and the rows read through the API and through sql_query are the ones imported before.
func TestLegacySchemaMoves(t *testing.T) {
	t.Parallel()
	db := testkit.EmptyDB(t)
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 91); err != nil {
		t.Fatal(err)
	}
	// What an earlier version left: the organization's schema and login role, a table, and its rows.
	var org uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('before') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	hex := strings.ReplaceAll(org.String(), "-", "")
	schema, role := "org_"+hex, "loopwork_org_"+hex
	t.Cleanup(func() {
		db.Exec(`DROP SCHEMA IF EXISTS ` + schema + ` CASCADE`)
		db.Exec(`DROP ROLE IF EXISTS ` + role)
	})
	raw, _ := base64.StdEncoding.DecodeString(testkit.EncryptionKey)
	box, _ := secret.NewBox(raw)
	sealed, _ := box.Seal([]byte("old password"), org[:])
	doc, upload, rev := uuid.New(), uuid.New(), uuid.New()
	for _, q := range []string{
		fmt.Sprintf(`CREATE ROLE %s LOGIN NOINHERIT CONNECTION LIMIT 20 PASSWORD 'old password'`, role),
		`CREATE SCHEMA ` + schema,
		fmt.Sprintf(`GRANT USAGE ON SCHEMA %s TO %s`, schema, role),
		fmt.Sprintf(`ALTER DEFAULT PRIVILEGES IN SCHEMA %s GRANT SELECT ON TABLES TO %s`, schema, role),
		fmt.Sprintf(`CREATE TABLE %s.fruit (k text NOT NULL, v text NOT NULL)`, schema),
		fmt.Sprintf(`INSERT INTO %s.fruit VALUES ('1', 'apple'), ('2', 'pear')`, schema),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Exec(`INSERT INTO document_schemas (organization_id, schema_name, role_name, sealed_password) VALUES ($1, $2, $3, $4)`,
		org, schema, role, sealed); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO documents (id, organization_id, name, database_type, status, current_table_name, revision_count, total_rows)
		VALUES ($1, $2, 'fruit', 'csv', 'ready', 'fruit', 1, 2)`, doc, org); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO document_uploads (id, organization_id, document_id, file_key, file_name, file_size, expires_at, completed_at)
		VALUES ($1, $2, $3, 'gone', 'fruit.csv', 20, now(), now())`, upload, org, doc); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO document_revisions (id, organization_id, document_id, upload_id, status, table_name, delimiter,
		has_header, columns, total_rows) VALUES ($1, $2, $3, $4, 'ready', 'fruit', ',', true, '{k,v}', 2)`, rev, org, doc, upload); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE documents SET current_revision = $2, current_file_id = $3 WHERE id = $1`, doc, rev, upload); err != nil {
		t.Fatal(err)
	}

	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var login bool
	if err := db.Get(&login, `SELECT rolcanlogin FROM pg_roles WHERE rolname = $1`, role); err != nil || login {
		t.Fatalf("the old role after the migration: login %v, %v", login, err)
	}

	env := testkit.NewEnv(t, testkit.WithDB(db))
	c := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 100); err != nil {
		t.Fatal(err)
	}
	if r := rows(t, c, doc, 1, 10); len(r.Rows) != 2 || r.Rows[1][1] != "pear" {
		t.Fatalf("rows after the upgrade: %+v", r)
	}
	if got := query(t, env, c, doc, `SELECT v FROM fruit ORDER BY k`); got.Status != "completed" || !strings.Contains(string(got.Output), "pear") {
		t.Fatalf("sql_query after the upgrade: %s %s", got.Output, got.Error)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left struct {
			Rows   int  `db:"rows"`
			Schema bool `db:"schema"`
			Role   bool `db:"role"`
		}
		db.Get(&left, `SELECT (SELECT count(*) FROM document_schemas) AS rows,
			EXISTS (SELECT FROM pg_namespace WHERE nspname = $1) AS schema, EXISTS (SELECT FROM pg_roles WHERE rolname = $2) AS role`, schema, role)
		if left.Rows == 0 && !left.Schema && !left.Role {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %+v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
