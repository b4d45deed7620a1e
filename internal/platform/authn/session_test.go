package authn_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func refresh(t *testing.T, env *testkit.Env, token string) *platformapi.IssueTokenResponse {
	t.Helper()
	api, _ := env.Clients(t, "")
	res, err := api.IssueTokenWithResponse(ctx, &platformapi.IssueTokenParams{GrantType: platformapi.RefreshToken},
		platformapi.TokenRequest{RefreshToken: new(token)}, testkit.AnonEditor)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func authUserStatus(t *testing.T, env *testkit.Env, access string) int {
	t.Helper()
	api, _ := env.Clients(t, access)
	res, err := api.GetAuthUserWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode()
}

// TestRefreshRotationAndReuse: each refresh token works once; presenting a spent one revokes the whole
// session, so the thief's and the owner's tokens all stop.
func TestRefreshRotationAndReuse(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	_, email := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	first := signIn(t, env, email, testkit.Password).JSON200

	second := refresh(t, env, first.RefreshToken)
	if second.StatusCode() != 200 || second.JSON200.RefreshToken == first.RefreshToken || second.JSON200.AccessToken == "" {
		t.Fatalf("refresh: %d %s", second.StatusCode(), second.Body)
	}
	if s := authUserStatus(t, env, second.JSON200.AccessToken); s != 200 {
		t.Fatalf("new access token: %d", s)
	}
	reuse := refresh(t, env, first.RefreshToken)
	if reuse.StatusCode() != http.StatusBadRequest || grantRefusal(t, reuse.Body) != "refresh_token_not_found" {
		t.Fatalf("reused refresh token: %d %s", reuse.StatusCode(), reuse.Body)
	}
	if res := refresh(t, env, second.JSON200.RefreshToken); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("successor after reuse must be revoked too: %d", res.StatusCode())
	}
	if s := authUserStatus(t, env, second.JSON200.AccessToken); s != http.StatusUnauthorized {
		t.Fatalf("access token of the revoked session: %d", s)
	}
	if res := refresh(t, env, "made-up-token"); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("unknown refresh token: %d", res.StatusCode())
	}
}

func TestRefreshOfDeactivatedOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	_, email := env.NewUser(t, org, auth.RoleAppUser)
	s := signIn(t, env, email, testkit.Password).JSON200
	env.ChangeAccess(t, `UPDATE organizations SET is_active = false WHERE id = $1`, org)
	if res := refresh(t, env, s.RefreshToken); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("refresh in a deactivated organization: %d", res.StatusCode())
	}
	if st := authUserStatus(t, env, s.AccessToken); st != http.StatusUnauthorized {
		t.Fatalf("access token in a deactivated organization: %d", st)
	}
}

// TestLogoutScopes: local ends one session, others all but the current, global all.
func TestLogoutScopes(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	_, email := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	a := signIn(t, env, email, testkit.Password).JSON200
	b := signIn(t, env, email, testkit.Password).JSON200
	c := signIn(t, env, email, testkit.Password).JSON200

	apiB, _ := env.Clients(t, b.AccessToken)
	others := platformapi.LogoutParamsScopeOthers
	if res, err := apiB.LogoutWithResponse(ctx, &platformapi.LogoutParams{Scope: &others}); err != nil || res.StatusCode() != 204 {
		t.Fatalf("logout others: %v %d", err, res.StatusCode())
	}
	if authUserStatus(t, env, a.AccessToken) != 401 || authUserStatus(t, env, c.AccessToken) != 401 || authUserStatus(t, env, b.AccessToken) != 200 {
		t.Fatal("scope=others must end every session but the caller's")
	}
	if res, err := apiB.LogoutWithResponse(ctx, &platformapi.LogoutParams{}); err != nil || res.StatusCode() != 204 {
		t.Fatalf("logout: %v %d", err, res.StatusCode())
	}
	if authUserStatus(t, env, b.AccessToken) != 401 {
		t.Fatal("access token still works after logout")
	}
	if res := refresh(t, env, b.RefreshToken); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("refresh token still works after logout: %d", res.StatusCode())
	}
	d := signIn(t, env, email, testkit.Password).JSON200
	e := signIn(t, env, email, testkit.Password).JSON200
	apiD, _ := env.Clients(t, d.AccessToken)
	global := platformapi.LogoutParamsScopeGlobal
	if res, _ := apiD.LogoutWithResponse(ctx, &platformapi.LogoutParams{Scope: &global}); res.StatusCode() != 204 {
		t.Fatalf("logout global: %d", res.StatusCode())
	}
	if authUserStatus(t, env, d.AccessToken) != 401 || authUserStatus(t, env, e.AccessToken) != 401 {
		t.Fatal("scope=global must end every session")
	}
}

// TestSessionRoutesRefuseAPIKeys: /auth/v1 session routes take access tokens only.
func TestSessionRoutesRefuseAPIKeys(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	k := env.KeyCaller(t, env.Org(t), auth.RoleAppUser)
	if res, _ := k.API.GetAuthUserWithResponse(ctx); res.StatusCode() != http.StatusUnauthorized {
		t.Fatalf("API key on /auth/v1/user: %d", res.StatusCode())
	}
	if res, _ := k.API.GetJwksWithResponse(ctx); res.StatusCode() != 200 {
		t.Fatalf("JWKS is public: %d", res.StatusCode())
	}
}

// TestInvitationLink: the link sets the password and signs in, once; wrong type, expiry and reuse fail.
func TestInvitationLink(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	id, email := env.NewUser(t, org, auth.RoleAppUser)
	if _, err := env.DB.Exec(`UPDATE users SET password_hash = NULL, email_confirmed_at = NULL WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	token, err := auth.IssueLink(ctx, env.DB, id, auth.LinkInvite, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := auth.IssueLink(ctx, env.DB, id, auth.LinkRecovery, -time.Second)
	if err != nil {
		t.Fatal(err)
	}
	api, _ := env.Clients(t, "")
	verify := func(typ platformapi.VerifyRequestType, tok string) *platformapi.VerifyAuthLinkResponse {
		res, err := api.VerifyAuthLinkWithResponse(ctx, platformapi.VerifyRequest{Type: typ, Token: tok, Password: "a new password"}, testkit.AnonEditor)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// An invitation sent as a recovery link says so, rather than that the link is not known.
	if res := verify(platformapi.Recovery, token); res.StatusCode() != http.StatusBadRequest || errorCode(t, res.Body) != "invalid_token" ||
		!strings.Contains(string(res.Body), "this is an invitation link, not a password-recovery link (it was sent with type=recovery; send it with type=invite)") {
		t.Fatalf("wrong link type: %d %s", res.StatusCode(), res.Body)
	}
	if res := verify(platformapi.Recovery, expired); res.StatusCode() != http.StatusBadRequest {
		t.Fatalf("expired link: %d", res.StatusCode())
	}
	res := verify(platformapi.Invite, token)
	if res.StatusCode() != 200 || res.JSON200.User.EmailConfirmedAt == nil {
		t.Fatalf("accept invitation: %d %s", res.StatusCode(), res.Body)
	}
	if authUserStatus(t, env, res.JSON200.AccessToken) != 200 {
		t.Fatal("session of an accepted invitation does not work")
	}
	if again := verify(platformapi.Invite, token); again.StatusCode() != http.StatusBadRequest {
		t.Fatalf("link used twice: %d", again.StatusCode())
	}
	if s := signIn(t, env, email, "a new password"); s.StatusCode() != 200 {
		t.Fatalf("sign in with the chosen password: %d", s.StatusCode())
	}
	if res, _ := api.VerifyAuthLinkWithResponse(ctx, platformapi.VerifyRequest{Type: platformapi.Invite, Token: "x", Password: "short"}, testkit.AnonEditor); res.StatusCode() != http.StatusUnprocessableEntity {
		t.Fatalf("password under 8 characters: %d", res.StatusCode())
	}
}
