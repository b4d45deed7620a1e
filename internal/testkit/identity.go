package testkit

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/memo"
)

// Password is the password of every user the factories create.
const Password = "correct horse battery staple"

var (
	passwordHashOnce sync.Once
	passwordHash     string
)

// hashedPassword is computed once per test binary: argon2id is slow on purpose.
func hashedPassword(t testing.TB) string {
	passwordHashOnce.Do(func() {
		h, err := auth.HashPassword(Password)
		if err != nil {
			panic(err)
		}
		passwordHash = h
	})
	return passwordHash
}

// Caller is a signed-in user (or service account) with clients that send its credential.
type Caller struct {
	UserID, OrgID uuid.UUID
	Email         string
	Role          auth.Role
	// Token is the credential the clients send: a JWT access token, or an API key for KeyCaller.
	Token     string
	SessionID uuid.UUID
	API       *platformapi.ClientWithResponses
	V1        *v1api.ClientWithResponses
}

// Org creates an active organization and returns its id.
func (e *Env) Org(t testing.TB) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := e.DB.Get(&id, `INSERT INTO organizations (name) VALUES ($1) RETURNING id`, "org "+uuid.NewString()[:8]); err != nil {
		t.Fatal(err)
	}
	return id
}

// NewUser creates an active user of org with a password (Password) and no session.
func (e *Env) NewUser(t testing.TB, org uuid.UUID, role auth.Role) (id uuid.UUID, email string) {
	t.Helper()
	email = fmt.Sprintf("%s-%s@example.com", role, uuid.NewString()[:8])
	err := e.DB.Get(&id, `INSERT INTO users (organization_id, email, first_name, last_name, role, password_hash, email_confirmed_at)
		VALUES ($1, $2, 'Test', 'User', $3, $4, now()) RETURNING id`, org, email, role, hashedPassword(t))
	if err != nil {
		t.Fatal(err)
	}
	return id, email
}

// User creates an active user of org with the role and signs it in (a session and a JWT).
func (e *Env) User(t testing.TB, org uuid.UUID, role auth.Role) *Caller {
	t.Helper()
	id, _ := e.NewUser(t, org, role)
	return e.SignIn(t, id)
}

// SignIn opens a session for an existing user and returns a caller with its access token.
func (e *Env) SignIn(t testing.TB, userID uuid.UUID) *Caller {
	t.Helper()
	ctx := context.Background()
	var u struct {
		OrgID uuid.UUID `db:"organization_id"`
		Email string    `db:"email"`
		Role  auth.Role `db:"role"`
	}
	if err := e.DB.Get(&u, `SELECT organization_id, email, role FROM users WHERE id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	s, err := auth.StartSession(ctx, e.DB, userID, u.OrgID, e.Config.RefreshTokenTTL, "testkit", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := e.tokens.Issue(ctx, auth.AccessClaims{UserID: userID, OrganizationID: u.OrgID,
		SessionID: s.ID, Email: u.Email})
	if err != nil {
		t.Fatal(err)
	}
	c := &Caller{UserID: userID, OrgID: u.OrgID, Email: u.Email, Role: u.Role, Token: token, SessionID: s.ID}
	c.API, c.V1 = e.Clients(t, token)
	return c
}

// KeyCaller creates an active user of org with the role and an API key; its clients send the key.
func (e *Env) KeyCaller(t testing.TB, org uuid.UUID, role auth.Role) *Caller {
	t.Helper()
	id, email := e.NewUser(t, org, role)
	token, prefix := auth.NewAPIKey()
	if _, err := e.DB.Exec(`INSERT INTO api_keys (organization_id, user_id, name, token_prefix, token_hash)
		VALUES ($1, $2, 'test key', $3, $4)`, org, id, prefix, auth.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	c := &Caller{UserID: id, OrgID: org, Email: email, Role: role, Token: token}
	c.API, c.V1 = e.Clients(t, token)
	return c
}

// Clients returns generated clients that send token as a bearer credential (empty: none).
func (e *Env) Clients(t testing.TB, token string) (*platformapi.ClientWithResponses, *v1api.ClientWithResponses) {
	t.Helper()
	edit := func(_ context.Context, r *http.Request) error {
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	}
	api, err := platformapi.NewClientWithResponses(e.URL, platformapi.WithHTTPClient(e.HTTP), platformapi.WithRequestEditorFn(edit))
	if err != nil {
		t.Fatal(err)
	}
	v1c, err := v1api.NewClientWithResponses(e.URL, v1api.WithHTTPClient(e.HTTP), v1api.WithRequestEditorFn(edit))
	if err != nil {
		t.Fatal(err)
	}
	return api, v1c
}

// AnonEditor adds the anonymous key, for the authentication service's routes.
func AnonEditor(_ context.Context, r *http.Request) error {
	r.Header.Set("apikey", AnonKey)
	return nil
}

// ChangeAccess runs a statement that changes what memoised principals or grants come from (a user, an
// organization, a key, a session, an app or a membership) straight in the database, as another
// replica or an operator would, and returns once the server has heard every notification committed up
// to then: it has heard a marker sent after the statement, and notifications arrive in commit order.
// (That the statement notifies at all is the memo package's trigger test.)
func (e *Env) ChangeAccess(t testing.TB, query string, args ...any) {
	t.Helper()
	if e.Server == nil {
		t.Fatal("ChangeAccess waits for the in-process server's memo bus, which an Env of NewProcessEnv does not have")
	}
	bus := e.Server.Memo()
	live := bus.Live()
	if _, err := e.DB.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
	if !live {
		return // nothing is memoised without the bus (WithoutWorkers)
	}
	deadline := time.Now().Add(5 * time.Second)
	for attempt := 0; ; attempt++ {
		// Another notification may arrive after a marker and hide it; then a new marker is sent.
		marker := fmt.Sprintf("testkit marker %s %d %d", t.Name(), time.Now().UnixNano(), attempt)
		if _, err := e.DB.Exec(`SELECT pg_notify($1, $2)`, memo.Channel, marker); err != nil {
			t.Fatal(err)
		}
		for wait := time.Now().Add(200 * time.Millisecond); time.Now().Before(wait); time.Sleep(time.Millisecond) {
			if bus.LastHeard() == marker {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server heard nothing for 5 s after %s", query)
		}
	}
}
