package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestAdminCreateUser bootstraps a usable account (and its organization) and refuses bad input.
func TestAdminCreateUser(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	e := envOf(map[string]string{"DATABASE_URL": testkit.DSN(t, db)})
	ctx := context.Background()
	var out bytes.Buffer
	args := []string{"admin", "create-user", "--email", "Root@Example.com", "--password", "long enough", "--role", "backoffice", "--org", "Acme"}
	if err := run(ctx, args, &out, e); err != nil || !strings.HasPrefix(out.String(), "created backoffice user") {
		t.Fatalf("create-user: %v %q", err, out.String())
	}
	var hash string
	if err := db.Get(&hash, `SELECT u.password_hash FROM users u JOIN organizations o ON o.id = u.organization_id
		WHERE u.email = 'root@example.com' AND o.name = 'acme' AND u.role = 'backoffice' AND u.is_active`); err != nil {
		t.Fatalf("user not stored as asked: %v", err)
	}
	if ok, _ := auth.VerifyPassword(hash, "long enough"); !ok {
		t.Fatal("password not usable")
	}
	if err := run(ctx, args, &out, e); err == nil || !strings.Contains(err.Error(), "already has an account") {
		t.Fatalf("duplicate: %v", err)
	}
	out.Reset()
	if err := run(ctx, append(args[:4:4], "--email", "second@example.com", "--password", "long enough", "--role", "app_user", "--if-no-users"), &out, e); err != nil ||
		!strings.Contains(out.String(), "nothing created") {
		t.Fatalf("--if-no-users with users present: %v %q", err, out.String())
	}
	for _, bad := range [][]string{
		{"--email", "nobody", "--password", "long enough", "--role", "app_user"},
		{"--email", "a@b.c", "--password", "short", "--role", "app_user"},
		{"--email", "a@b.c", "--password", "long enough", "--role", "emperor"},
	} {
		if err := run(ctx, append([]string{"admin", "create-user"}, bad...), &out, e); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestAdminWithoutDatabaseSaysHow: beside `make run`, a shell has no DATABASE_URL; the error says how to
// reach the database make run uses, with the line to export once make run has written it down.
func TestAdminWithoutDatabaseSaysHow(t *testing.T) {
	t.Chdir(t.TempDir())
	e := envOf(map[string]string{})
	err := run(context.Background(), []string{"admin", "mail-outbox"}, io.Discard, e)
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL: not set") || !strings.Contains(err.Error(), "make admin ARGS=") ||
		strings.Contains(err.Error(), "export") {
		t.Fatalf("without .data: %v", err)
	}
	const url = "postgres://postgres@127.0.0.1:55432/loopwork?sslmode=disable"
	if err := os.MkdirAll(".data", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".data/run.env", []byte("DATABASE_URL="+url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), []string{"admin", "mail-outbox"}, io.Discard, e)
	if err == nil || !strings.Contains(err.Error(), "export DATABASE_URL='"+url+"'") {
		t.Fatalf("with .data/run.env: %v", err)
	}
}
