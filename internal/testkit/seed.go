package testkit

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
)

// Tests that start real server processes have no in-process server to create callers through, so they
// write them to the database directly, as these do.

// SeedOrg writes an organization named name with 100,000 credits and returns its id.
func SeedOrg(t testing.TB, db *sqlx.DB, name string) uuid.UUID {
	t.Helper()
	var org uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ($1) RETURNING id`, name); err != nil {
		t.Fatal(err)
	}
	if err := credits.Grant(context.Background(), db, org, 100000); err != nil {
		t.Fatal(err)
	}
	return org
}

// SeedUser writes a confirmed user of role in org with the e-mail address email and an API key, and
// returns the key and the user's id.
func SeedUser(t testing.TB, db *sqlx.DB, org uuid.UUID, role auth.Role, email string) (string, uuid.UUID) {
	t.Helper()
	var user uuid.UUID
	if err := db.Get(&user, `INSERT INTO users (organization_id, email, first_name, last_name, role, email_confirmed_at)
		VALUES ($1, $2, 'A', 'B', $3, now()) RETURNING id`, org, email, role); err != nil {
		t.Fatal(err)
	}
	token, prefix := auth.NewAPIKey()
	if _, err := db.Exec(`INSERT INTO api_keys (organization_id, user_id, name, token_prefix, token_hash) VALUES ($1, $2, 'k', $3, $4)`,
		org, user, prefix, auth.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	return token, user
}

// SeedCaller writes an organization named crash with credits and its org_admin admin@crash.test with
// an API key, and returns the key.
func SeedCaller(t testing.TB, db *sqlx.DB) string {
	t.Helper()
	token, _ := SeedUser(t, db, SeedOrg(t, db, "crash"), auth.RoleOrgAdmin, "admin@crash.test")
	return token
}
