package authn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

func signIn(t *testing.T, env *testkit.Env, email, password string) *platformapi.IssueTokenResponse {
	t.Helper()
	api, _ := env.Clients(t, "")
	res, err := api.IssueTokenWithResponse(ctx, &platformapi.IssueTokenParams{GrantType: platformapi.Password},
		platformapi.TokenRequest{Email: new(openapi_types.Email(email)), Password: new(password)}, testkit.AnonEditor)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e platformapi.ErrorResponse
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == nil {
		t.Fatalf("not an ErrorResponse: %s", body)
	}
	return *e.Error.Code
}

// grantRefusal reads a refused grant of /auth/v1/token: GoTrue's OAuth 2.0 token error, which must say
// invalid_grant with a description, as GoTrue clients expect; it answers the error_code.
func grantRefusal(t *testing.T, body []byte) string {
	t.Helper()
	var e platformapi.TokenError
	if err := json.Unmarshal(body, &e); err != nil || e.Error != "invalid_grant" || e.ErrorDescription == "" {
		t.Fatalf("not a GoTrue token error: %s", body)
	}
	return string(e.ErrorCode)
}

// TestPasswordSignIn signs in, uses the token, and checks the GoTrue-shaped session.
func TestPasswordSignIn(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	id, email := env.NewUser(t, org, auth.RoleAppUser)

	res := signIn(t, env, email, testkit.Password)
	if res.StatusCode() != 200 {
		t.Fatalf("sign-in: %d %s", res.StatusCode(), res.Body)
	}
	s := res.JSON200
	if s.TokenType != platformapi.Bearer || s.ExpiresIn != 3600 || s.RefreshToken == "" || s.User.Id != id ||
		s.User.AppMetadata.OrganizationId != org || s.User.AppMetadata.Role != platformapi.UserRole(auth.RoleAppUser) {
		t.Fatalf("session: %+v", s)
	}
	api, _ := env.Clients(t, s.AccessToken)
	me, err := api.GetAuthUserWithResponse(ctx)
	if err != nil || me.StatusCode() != 200 || string(me.JSON200.Email) != email || me.JSON200.LastSignInAt == nil {
		t.Fatalf("GET /auth/v1/user: %v %d %s", err, me.StatusCode(), me.Body)
	}
}

// TestWrongPasswordAndUnknownUserLookAlike: the reply never tells whether an account exists.
func TestWrongPasswordAndUnknownUserLookAlike(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	_, email := env.NewUser(t, org, auth.RoleAppUser)
	invitedID, invited := env.NewUser(t, org, auth.RoleAppUser)
	if _, err := env.DB.Exec(`UPDATE users SET password_hash = NULL WHERE id = $1`, invitedID); err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, c := range []struct{ email, password string }{
		{email, "wrong password"}, {"nobody@example.com", testkit.Password}, {invited, testkit.Password},
	} {
		res := signIn(t, env, c.email, c.password)
		if res.StatusCode() != http.StatusBadRequest || grantRefusal(t, res.Body) != "invalid_credentials" {
			t.Fatalf("%s: %d %s", c.email, res.StatusCode(), res.Body)
		}
		var e platformapi.TokenError
		_ = json.Unmarshal(res.Body, &e)
		if e.RequestId == nil {
			t.Fatalf("%s: no request_id in %s", c.email, res.Body)
		}
		e.RequestId = nil
		b, _ := json.Marshal(e)
		bodies = append(bodies, string(b))
	}
	if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
		t.Fatalf("replies differ: %v", bodies)
	}
}

func TestAnonKeyIsRequired(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	api, _ := env.Clients(t, "")
	body := platformapi.TokenRequest{Email: new(openapi_types.Email("a@example.com")), Password: new("x")}
	params := &platformapi.IssueTokenParams{GrantType: platformapi.Password}
	for name, editor := range map[string]platformapi.RequestEditorFn{
		"missing": func(context.Context, *http.Request) error { return nil },
		"wrong":   func(_ context.Context, r *http.Request) error { r.Header.Set("apikey", "nope"); return nil },
	} {
		res, err := api.IssueTokenWithResponse(ctx, params, body, editor)
		if err != nil || res.StatusCode() != http.StatusUnauthorized {
			t.Fatalf("%s apikey: %v %d", name, err, res.StatusCode())
		}
	}
	res, err := api.GetAnonKeyWithResponse(ctx)
	if err != nil || res.StatusCode() != 200 || res.JSON200.AnonKey != testkit.AnonKey {
		t.Fatalf("anon key route: %v %d %s", err, res.StatusCode(), res.Body)
	}
}

func TestAnonKeyNotConfigured(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.AnonKey = "" }))
	api, _ := env.Clients(t, "")
	res, err := api.GetAnonKeyWithResponse(ctx)
	if err != nil || res.StatusCode() != http.StatusInternalServerError || errorCode(t, res.Body) != "anon_key_not_configured" {
		t.Fatalf("%v %d %s", err, res.StatusCode(), res.Body)
	}
}

// TestGrantFieldsAreRequired: a field the grant needs answers 422 naming it.
func TestGrantFieldsAreRequired(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	api, _ := env.Clients(t, "")
	cases := []struct {
		grant platformapi.IssueTokenParamsGrantType
		body  platformapi.TokenRequest
		field string
	}{
		{platformapi.Password, platformapi.TokenRequest{Password: new("x")}, "email"},
		{platformapi.Password, platformapi.TokenRequest{Email: new(openapi_types.Email("a@example.com"))}, "password"},
		{platformapi.RefreshToken, platformapi.TokenRequest{}, "refresh_token"},
	}
	for _, c := range cases {
		res, err := api.IssueTokenWithResponse(ctx, &platformapi.IssueTokenParams{GrantType: c.grant}, c.body, testkit.AnonEditor)
		if err != nil || res.StatusCode() != http.StatusUnprocessableEntity {
			t.Fatalf("%s without %s: %v %d %s", c.grant, c.field, err, res.StatusCode(), res.Body)
		}
		d := res.JSON422.Detail[0]
		if len(d.Loc) != 2 || d.Loc[1] != c.field || d.Type != "missing" {
			t.Fatalf("%s without %s: detail %+v", c.grant, c.field, d)
		}
	}
}

// TestSignInRateLimit: past the per-e-mail limit the route answers 429 with Retry-After.
func TestSignInRateLimit(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.SignInLimitPerEmail = 2 }))
	_, email := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	testkit.AwayFromMinuteBoundary()
	for i := 0; i < 2; i++ {
		if res := signIn(t, env, email, "wrong"); res.StatusCode() != http.StatusBadRequest {
			t.Fatalf("attempt %d: %d", i+1, res.StatusCode())
		}
	}
	res := signIn(t, env, email, testkit.Password)
	if res.StatusCode() != http.StatusTooManyRequests || res.HTTPResponse.Header.Get("Retry-After") == "" {
		t.Fatalf("third attempt: %d %s (Retry-After %q)", res.StatusCode(), res.Body, res.HTTPResponse.Header.Get("Retry-After"))
	}
}

// TestDeactivatedUserCannotSignIn, and its live token stops at once.
func TestDeactivatedUserCannotSignIn(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	env.ChangeAccess(t, `UPDATE users SET is_active = false WHERE id = $1`, c.UserID)
	if res := signIn(t, env, c.Email, testkit.Password); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("sign-in of a deactivated user: %d", res.StatusCode())
	}
	if res, _ := c.API.GetAuthUserWithResponse(ctx); res.StatusCode() != http.StatusUnauthorized {
		t.Fatalf("token of a deactivated user: %d", res.StatusCode())
	}
}
