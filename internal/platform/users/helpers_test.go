package users_test

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// code returns the error code of an ErrorResponse, or "" when there is none.
func code(e *platformapi.ErrorResponse) string {
	if e == nil || e.Error.Code == nil {
		return ""
	}
	return *e.Error.Code
}

func newEmail(prefix string) openapi_types.Email {
	return openapi_types.Email(prefix + "-" + uuid.NewString()[:8] + "@example.com")
}

// person is a valid creation request for an app_user with a fresh address.
func person(org *uuid.UUID) platformapi.CreateUserRequest {
	return platformapi.CreateUserRequest{FirstName: "Ada", LastName: "Lovelace", Email: newEmail("ada"),
		Role: platformapi.AppUser, OrganizationId: org}
}

// createUser creates a user through the API and fails the test unless it answers 201.
func createUser(t *testing.T, c *testkit.Caller, body platformapi.CreateUserRequest) platformapi.UserResponse {
	t.Helper()
	res, err := c.API.AdminCreateUserWithResponse(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusCreated {
		t.Fatalf("create user: status %d: %s", res.StatusCode(), res.Body)
	}
	return *res.JSON201
}

// outbox is one queued e-mail.
type outbox struct {
	Subject string  `db:"subject"`
	Text    string  `db:"text_body"`
	HTML    *string `db:"html_body"`
}

// mails returns the e-mails queued for an address, oldest first.
func mails(t *testing.T, env *testkit.Env, to openapi_types.Email) []outbox {
	t.Helper()
	var out []outbox
	if err := env.DB.Select(&out, `SELECT subject, text_body, html_body FROM mail_outbox WHERE recipient = $1
		ORDER BY created_at`, string(to)); err != nil {
		t.Fatal(err)
	}
	return out
}

var linkToken = regexp.MustCompile(`/auth/verify\?type=(invite|recovery)&token=([0-9A-Za-z]+)`)

// linkOf returns the kind and token of the link in a mail's text.
func linkOf(t *testing.T, m outbox) (kind, token string) {
	t.Helper()
	got := linkToken.FindStringSubmatch(m.Text)
	if got == nil {
		t.Fatalf("no link in mail %q:\n%s", m.Subject, m.Text)
	}
	return got[1], got[2]
}

// profileStatus is the status the caller's credential gets right now.
func profileStatus(t *testing.T, c *testkit.Caller) int {
	t.Helper()
	res, err := c.API.GetMyProfileWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode()
}

// errRollback ends a transaction a test only looks through.
var errRollback = errors.New("rollback")

// redeem reports whose link token it is, if it would be accepted now; the redemption is rolled back,
// so the link stays usable.
func redeem(t *testing.T, env *testkit.Env, token string, kind auth.LinkKind) (uuid.UUID, bool) {
	t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	var ok bool
	err := dbx.WithTx(ctx, env.DB, func(tx *sqlx.Tx) error {
		var err error
		id, err = auth.RedeemLink(ctx, tx, token, kind)
		ok = err == nil
		return errRollback
	})
	if err != errRollback {
		t.Fatal(err)
	}
	return id, ok
}

// refusal is a caller a route on one user must turn away, and how.
type refusal struct {
	name   string
	caller *testkit.Caller
	id     uuid.UUID
	want   int
}

// userRefusals are the cases every admin route on one user shares: admin is an org_admin, stranger an
// app_user of another organization.
func userRefusals(env *testkit.Env, admin, stranger *testkit.Caller) []refusal {
	return []refusal{
		{"another organization's user", admin, stranger.UserID, http.StatusNotFound},
		{"missing user", admin, uuid.New(), http.StatusNotFound},
		{"app_user", stranger, stranger.UserID, http.StatusForbidden},
		{"anonymous", &testkit.Caller{API: env.API}, stranger.UserID, http.StatusUnauthorized},
	}
}
