// Command schemadump writes db/schema.sql, the schema of a fully migrated database as pg_dump prints it,
// so that a reader (or a reviewer of a migration) sees the tables, functions and triggers the migrations
// add up to without replaying them. It creates a throwaway database on the server TEST_DATABASE_URL
// names, runs every migration (River's included) and dumps it; `make schema` runs it on a throwaway
// cluster. A test fails when the committed file is not what it writes.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/dbx"
)

func main() {
	server := flag.String("server", os.Getenv("TEST_DATABASE_URL"), "a PostgreSQL server URL on which a throwaway database may be created")
	out := flag.String("out", "db/schema.sql", "the file to write")
	flag.Parse()
	if *server == "" {
		fail(fmt.Errorf("no server: set TEST_DATABASE_URL or -server (make schema starts one)"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	schema, err := dumpThrowaway(ctx, *server)
	if err != nil {
		fail(err)
	}
	old, _ := os.ReadFile(*out)
	if string(old) == string(schema) {
		fmt.Println("schemadump:", *out, "is current")
		return
	}
	if err := os.WriteFile(*out, schema, 0o644); err != nil {
		fail(err)
	}
	fmt.Println("schemadump: wrote", *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "schemadump:", err)
	os.Exit(1)
}

// dumpThrowaway creates a database of its own on the server, migrates and dumps it, and drops it again
// whatever happens, so that nothing of a developer's own databases can leak into the file.
func dumpThrowaway(ctx context.Context, serverURL string) ([]byte, error) {
	admin, err := sqlx.Open("postgres", serverURL)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "loopwork_schema_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return nil, fmt.Errorf("create a throwaway database: %w", err)
	}
	defer admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`) //nolint:errcheck
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", err)
	}
	u.Path = "/" + name
	return migrateAndDump(ctx, u.String())
}

// migrateAndDump runs every migration on the empty database dsn names and returns its schema as
// db/schema.sql holds it.
func migrateAndDump(ctx context.Context, dsn string) ([]byte, error) {
	db, err := dbx.Open(ctx, dsn, dbx.PoolOptions{MaxOpenConns: 2})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		return nil, err
	}
	if _, err := p.Up(ctx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var version int
	if err := db.GetContext(ctx, &version, `SELECT current_setting('server_version_num')::int`); err != nil {
		return nil, err
	}
	major := version / 10000
	raw, err := pgDump(ctx, dsn, major)
	if err != nil {
		return nil, err
	}
	return normalize(raw, major), nil
}

// pgDump runs pg_dump of the server's own major version when it is installed beside it (Debian keeps one
// per version under /usr/lib/postgresql), as an older one refuses a newer server and another one may
// print the same schema differently; otherwise the pg_dump on PATH.
func pgDump(ctx context.Context, dsn string, major int) ([]byte, error) {
	bin := "/usr/lib/postgresql/" + strconv.Itoa(major) + "/bin/pg_dump"
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("pg_dump"); err != nil {
			return nil, fmt.Errorf("pg_dump not found (install PostgreSQL %d's client): %w", major, err)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--schema-only", "--no-owner", "--no-privileges", "--dbname", dsn)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", bin, err, stderr.String())
	}
	return stdout.Bytes(), nil
}
