package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestPrincipalsAndGrantsAreMemoised: a caller's principal (by API key and by session) and its grant on
// an app are served from memory — a change made with the triggers switched off goes unseen — and are
// forgotten as soon as the database notifies a change.
func TestPrincipalsAndGrantsAreMemoised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testkit.NewEnv(t)
	if !env.Server.Memo().Live() {
		t.Fatal("the server is not listening for access changes")
	}
	org := env.Org(t)
	admin := env.KeyCaller(t, org, auth.RoleOrgAdmin)
	created, err := admin.V1.CreateAppWithResponse(ctx, nil, v1api.CreateAppJSONRequestBody{Name: new("memo")})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create app: %v %s", err, created.Body)
	}
	app := created.JSON201.Id
	labeler := env.User(t, org, auth.RoleAppUser)
	env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'LABELER')`,
		app, labeler.UserID, org)

	get := func(c *testkit.Caller) int {
		t.Helper()
		res, err := c.V1.GetAppWithResponse(ctx, app, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode()
	}
	for _, c := range []*testkit.Caller{admin, labeler} {
		if s := get(c); s != http.StatusOK {
			t.Fatalf("%s: %d before any change", c.Role, s)
		}
	}

	// Unheard changes: the key is revoked, the session ended and the membership removed.
	silently(t, env, `UPDATE api_keys SET revoked_at = now() WHERE user_id = $1`, admin.UserID)
	silently(t, env, `UPDATE auth_sessions SET revoked_at = now() WHERE id = $1`, labeler.SessionID)
	silently(t, env, `DELETE FROM app_workers WHERE app_id = $1`, app)
	for _, c := range []*testkit.Caller{admin, labeler} {
		if s := get(c); s != http.StatusOK {
			t.Fatalf("%s: %d; the memoised principal and grant were not used", c.Role, s)
		}
	}

	// Heard: everything is loaded again.
	env.ChangeAccess(t, `SELECT pg_notify('loopwork_access', 'test')`)
	if s := get(admin); s != http.StatusUnauthorized {
		t.Fatalf("revoked key: %d, want 401", s)
	}
	if s := get(labeler); s != http.StatusUnauthorized {
		t.Fatalf("ended session: %d, want 401", s)
	}
	other := env.User(t, org, auth.RoleAppUser)
	if s := get(other); s != http.StatusNotFound {
		t.Fatalf("non-member: %d, want 404", s)
	}
}

// silently changes rows with the triggers switched off, so that no notification is sent.
func silently(t *testing.T, env *testkit.Env, query string, args ...any) {
	t.Helper()
	tx, err := env.DB.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.Exec(`SET LOCAL session_replication_role = replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
