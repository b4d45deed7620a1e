// Package testdb gives each test a real PostgreSQL database of its own, migrated from a template. It
// imports nothing of the product but its migrations, so that the packages below the server (the engine)
// test against a database without an import cycle; testkit builds the rest of the harness on it.
package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // the "postgres" driver

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/dbx"
)

// ServerURL is the PostgreSQL server the tests create their databases on. `make test` sets it.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" {
		t.Fatal("TEST_DATABASE_URL is not set: run the tests with `make test`, which starts a PostgreSQL for them")
	}
	return u
}

func withDatabase(raw, name string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// migrationsHash names the template after the schema it holds, so a changed migration builds a new one.
func migrationsHash() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations.Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(migrations.Files(), path)
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	h.Write([]byte(fmt.Sprint(migrations.RiverVersion, migrations.RiverUpgrade, "river v0.51.1")))
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// ensureTemplate migrates a template database once per schema version. Test processes of different
// packages run at once, so an advisory lock serialises the build and a rename publishes it whole.
func ensureTemplate(serverURL string) (string, error) {
	templateOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		name := "loopwork_tpl_" + migrationsHash()
		admin, err := sqlx.Open("postgres", serverURL)
		if err != nil {
			templateErr = err
			return
		}
		defer admin.Close()
		conn, err := admin.Connx(ctx)
		if err != nil {
			templateErr = fmt.Errorf("connect to TEST_DATABASE_URL: %w", err)
			return
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext('loopwork test template'))`); err != nil {
			templateErr = err
			return
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(hashtext('loopwork test template'))`) //nolint:errcheck
		var exists bool
		if err := conn.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name); err != nil {
			templateErr = err
			return
		}
		if !exists {
			building := name + "_build"
			if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`); err != nil {
				templateErr = err
				return
			}
			if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
				templateErr = err
				return
			}
			if err := migrateURL(ctx, serverURL, building); err != nil {
				templateErr = fmt.Errorf("migrate test template: %w", err)
				return
			}
			if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+name); err != nil {
				templateErr = err
				return
			}
		}
		templateName = name
	})
	return templateName, templateErr
}

func migrateURL(ctx context.Context, serverURL, name string) error {
	dsn, err := withDatabase(serverURL, name)
	if err != nil {
		return err
	}
	db, err := dbx.Open(ctx, dsn, dbx.PoolOptions{MaxOpenConns: 2, MaxIdleConns: 0})
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// DB returns a migrated database of the test's own, cloned from the template, dropped when the test ends.
func DB(t testing.TB) *sqlx.DB {
	t.Helper()
	serverURL := ServerURL(t)
	tpl, err := ensureTemplate(serverURL)
	if err != nil {
		t.Fatalf("test database template: %v", err)
	}
	return createDB(t, serverURL, "TEMPLATE "+tpl)
}

// EmptyDB returns an empty database of the test's own (no migrations applied).
func EmptyDB(t testing.TB) *sqlx.DB {
	t.Helper()
	return createDB(t, ServerURL(t), "")
}

func createDB(t testing.TB, serverURL, clause string) *sqlx.DB {
	t.Helper()
	ctx := context.Background()
	name := randomName("loopwork_t_")
	admin, err := sqlx.Open("postgres", serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name+` `+clause); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	dsn, err := withDatabase(serverURL, name)
	if err != nil {
		t.Fatal(err)
	}
	db, err := dbx.Open(ctx, dsn, dbx.PoolOptions{MaxOpenConns: 20, MaxIdleConns: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The organizations' document databases and roles the test made go with it.
		var tenants []struct {
			Database string `db:"database_name"`
			Role     string `db:"role_name"`
		}
		_ = db.SelectContext(ctx, &tenants, `SELECT database_name, role_name FROM document_databases`)
		_ = db.Close()
		admin, err := sqlx.Open("postgres", serverURL)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		for _, tn := range tenants {
			_, _ = admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS "`+tn.Database+`" WITH (FORCE)`)
			_, _ = admin.ExecContext(context.Background(), `DROP ROLE IF EXISTS "`+tn.Role+`"`)
		}
	})
	return db
}

// DSN returns the connection string of a database created by DB or EmptyDB (for code that opens its own pool).
func DSN(t testing.TB, db *sqlx.DB) string {
	t.Helper()
	var name string
	if err := db.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	dsn, err := withDatabase(ServerURL(t), name)
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// DropDB drops a database created by DB or EmptyDB while connections to it are open: the closest a
// test gets to the database going away under a running server.
func DropDB(t testing.TB, db *sqlx.DB) {
	t.Helper()
	var name string
	if err := db.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	admin, err := sqlx.Open("postgres", ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
}
