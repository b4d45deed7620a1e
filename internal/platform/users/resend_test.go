package users_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func resend(t *testing.T, c *testkit.Caller, email openapi_types.Email) *platformapi.ResendInvitationResponse {
	t.Helper()
	res, err := c.API.ResendInvitationWithResponse(context.Background(), platformapi.ResendInviteRequest{Email: email})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// redeemable reports whether a link token would be accepted now.
func redeemable(t *testing.T, env *testkit.Env, token string, kind auth.LinkKind) bool {
	t.Helper()
	_, ok := redeem(t, env, token, kind)
	return ok
}

func TestResendInvitation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)

	t.Run("invited user gets a new invitation; the earlier link stops working", func(t *testing.T) {
		t.Parallel()
		body := person(&orgA)
		u := createUser(t, adminA, body)
		_, first := linkOf(t, mails(t, env, body.Email)[0])
		res := resend(t, adminA, openapi_types.Email(strings.ToUpper(string(body.Email))))
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		if !res.JSON200.Success || res.JSON200.Email != string(u.Email) || res.JSON200.Message != "Invitation sent" {
			t.Errorf("got %+v", res.JSON200)
		}
		ms := mails(t, env, body.Email)
		if len(ms) != 2 {
			t.Fatalf("%d mails, want 2", len(ms))
		}
		kind, second := linkOf(t, ms[1])
		if kind != "invite" || second == first {
			t.Errorf("second link %s %s", kind, second)
		}
		if redeemable(t, env, first, auth.LinkInvite) || !redeemable(t, env, second, auth.LinkInvite) {
			t.Error("the earlier link still works, or the new one does not")
		}

		// A second request for the same address within a minute is refused with Retry-After. The limiter
		// counts in fixed windows, so a window may end between the two calls: then the next one is refused.
		var limited *platformapi.ResendInvitationResponse
		for i := 0; i < 2; i++ {
			if limited = resend(t, bo, body.Email); limited.StatusCode() != http.StatusOK {
				break
			}
		}
		if limited.StatusCode() != http.StatusTooManyRequests || code(limited.JSON429) != "rate_limited" {
			t.Fatalf("status %d: %s", limited.StatusCode(), limited.Body)
		}
		after, err := strconv.Atoi(limited.HTTPResponse.Header.Get("Retry-After"))
		if err != nil || after < 1 || after > 60 {
			t.Errorf("Retry-After %q", limited.HTTPResponse.Header.Get("Retry-After"))
		}
	})

	t.Run("active user gets a password link", func(t *testing.T) {
		t.Parallel()
		member := env.User(t, orgA, auth.RoleAppUser)
		res := resend(t, adminA, openapi_types.Email(member.Email))
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		ms := mails(t, env, openapi_types.Email(member.Email))
		if len(ms) != 1 {
			t.Fatalf("%d mails", len(ms))
		}
		kind, token := linkOf(t, ms[0])
		if kind != "recovery" || !redeemable(t, env, token, auth.LinkRecovery) || !strings.Contains(ms[0].Text, "1 hour") {
			t.Errorf("link %s, mail:\n%s", kind, ms[0].Text)
		}
	})

	t.Run("backoffice reaches any organization", func(t *testing.T) {
		t.Parallel()
		u := createUser(t, bo, person(&orgB))
		if res := resend(t, bo, u.Email); res.StatusCode() != http.StatusOK {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("404 for unknown, deactivated and other organizations' users", func(t *testing.T) {
		t.Parallel()
		off := person(&orgA)
		off.IsActive = new(false)
		createUser(t, adminA, off)
		stranger := env.User(t, orgB, auth.RoleAppUser)
		for name, email := range map[string]openapi_types.Email{
			"unknown":                newEmail("nobody"),
			"deactivated":            off.Email,
			"another organization's": openapi_types.Email(stranger.Email),
		} {
			if res := resend(t, adminA, email); res.StatusCode() != http.StatusNotFound {
				t.Errorf("%s: status %d: %s", name, res.StatusCode(), res.Body)
			}
		}
		if n := len(mails(t, env, openapi_types.Email(stranger.Email))); n != 0 {
			t.Errorf("%d mails sent to another organization's user", n)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		member := env.User(t, orgA, auth.RoleAppUser)
		if res := resend(t, member, openapi_types.Email(adminA.Email)); res.StatusCode() != http.StatusForbidden {
			t.Errorf("app_user: status %d", res.StatusCode())
		}
		if res := resend(t, &testkit.Caller{API: env.API}, openapi_types.Email(member.Email)); res.StatusCode() != http.StatusUnauthorized {
			t.Errorf("anonymous: status %d", res.StatusCode())
		}
		bad, err := adminA.API.ResendInvitationWithBodyWithResponse(context.Background(), "application/json",
			strings.NewReader(`{"email":"not-an-address"}`))
		if err != nil {
			t.Fatal(err)
		}
		if bad.StatusCode() != http.StatusUnprocessableEntity {
			t.Errorf("bad address: status %d", bad.StatusCode())
		}
	})
}
