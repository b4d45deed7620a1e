package users_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func TestCreateUserSendsInvitation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)

	body := person(&org)
	body.FirstName = "  Grace "
	u := createUser(t, bo, body)
	if u.OrganizationId != org || u.Status != platformapi.UserStatusInvited || !u.IsActive || u.Role != platformapi.AppUser ||
		u.FirstName != "Grace" || u.LastLoginAt != nil || u.ModifiedBy != bo.UserID.String() {
		t.Errorf("got %+v", u)
	}

	ms := mails(t, env, body.Email)
	if len(ms) != 1 {
		t.Fatalf("%d mails queued, want 1", len(ms))
	}
	kind, token := linkOf(t, ms[0])
	if kind != "invite" {
		t.Errorf("link type %s", kind)
	}
	if !strings.HasPrefix(ms[0].Text, "Hello Grace,") || !strings.Contains(ms[0].Text, bo.Email) ||
		!strings.Contains(ms[0].Text, "72 hours") || ms[0].HTML == nil || !strings.Contains(*ms[0].HTML, token) {
		t.Errorf("mail does not name the inviter, the lifetime or carry the link:\n%s\n%v", ms[0].Text, ms[0].HTML)
	}
	if !strings.HasPrefix(ms[0].Text[strings.Index(ms[0].Text, "http"):], env.URL+"/auth/verify?") {
		t.Errorf("link does not point at the server the request came to (%s):\n%s", env.URL, ms[0].Text)
	}

	var lifetime time.Duration
	var secs float64
	if err := env.DB.Get(&secs, `SELECT extract(epoch FROM expires_at - created_at) FROM auth_link_tokens
		WHERE token_hash = $1 AND kind = 'invite' AND used_at IS NULL`, auth.HashToken(token)); err != nil {
		t.Fatalf("the mailed token is not a pending invitation: %v", err)
	}
	if lifetime = time.Duration(secs) * time.Second; lifetime != 72*time.Hour {
		t.Errorf("invitation valid for %v, want 72h", lifetime)
	}
	if id, ok := redeem(t, env, token, auth.LinkInvite); !ok || id != u.Id {
		t.Errorf("link redeems for %s (%v), want %s", id, ok, u.Id)
	}
}

func TestCreateUserRules(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	ctx := context.Background()

	t.Run("org_admin adds to its own organization through the path, ignoring the body's organization", func(t *testing.T) {
		t.Parallel()
		body := person(&orgB)
		body.Role = platformapi.OrgAdmin
		res, err := adminA.API.AdminCreateOrganizationUserWithResponse(ctx, orgA, body)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusCreated || res.JSON201.OrganizationId != orgA || res.JSON201.Role != platformapi.OrgAdmin {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		if len(mails(t, env, body.Email)) != 1 {
			t.Error("no invitation queued")
		}
	})

	t.Run("is_active false creates a deactivated user without invitation", func(t *testing.T) {
		t.Parallel()
		body := person(&orgA)
		body.IsActive = new(false)
		u := createUser(t, adminA, body)
		if u.Status != platformapi.UserStatusDeactivated || u.IsActive {
			t.Errorf("got %+v", u)
		}
		if n := len(mails(t, env, body.Email)); n != 0 {
			t.Errorf("%d mails queued", n)
		}
	})

	t.Run("e-mail unique per organization, ignoring case", func(t *testing.T) {
		t.Parallel()
		body := person(&orgA)
		createUser(t, adminA, body)
		again := person(&orgA)
		again.Email = openapi_types.Email(strings.ToUpper(string(body.Email)))
		res, err := adminA.API.AdminCreateUserWithResponse(ctx, again)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "conflict" {
			t.Errorf("same organization: status %d: %s", res.StatusCode(), res.Body)
		}
		other := body
		other.OrganizationId = &orgB
		createUser(t, bo, other)
	})

	t.Run("deactivated organization is 409 organization_inactive", func(t *testing.T) {
		t.Parallel()
		off := env.Org(t)
		env.ChangeAccess(t, `UPDATE organizations SET is_active = false WHERE id = $1`, off)
		res, err := bo.API.AdminCreateOrganizationUserWithResponse(ctx, off, person(nil))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "organization_inactive" {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		backoffice := person(&orgA)
		backoffice.Role = platformapi.Backoffice
		missing := uuid.New()
		for _, c := range []struct {
			name   string
			caller *testkit.Caller
			body   platformapi.CreateUserRequest
			want   int
		}{
			{"org_admin in another organization", adminA, person(&orgB), http.StatusNotFound},
			{"org_admin in a missing organization", adminA, person(&missing), http.StatusNotFound},
			{"backoffice in a missing organization", bo, person(&missing), http.StatusNotFound},
			{"org_admin creating backoffice", adminA, backoffice, http.StatusForbidden},
			{"app_user", env.User(t, orgA, auth.RoleAppUser), person(&orgA), http.StatusForbidden},
			{"integration key", env.KeyCaller(t, orgA, auth.RoleIntegration), person(&orgA), http.StatusForbidden},
		} {
			res, err := c.caller.API.AdminCreateUserWithResponse(ctx, c.body)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != c.want {
				t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
			}
		}
		for _, id := range []uuid.UUID{orgB, missing} {
			res, err := adminA.API.AdminCreateOrganizationUserWithResponse(ctx, id, person(nil))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusNotFound {
				t.Errorf("org_admin, path of organization %s: status %d: %s", id, res.StatusCode(), res.Body)
			}
		}
		res, err := env.API.AdminCreateUserWithResponse(ctx, person(&orgA))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusUnauthorized {
			t.Errorf("anonymous: status %d", res.StatusCode())
		}
		// Backoffice may create backoffice users anywhere.
		createUser(t, bo, backoffice)
	})

	t.Run("422 for invalid bodies", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("n", 101)
		for _, c := range []struct {
			name, body, field string
		}{
			{"missing organization_id", `{"first_name":"A","last_name":"B","email":"a@example.com","role":"app_user"}`, "organization_id"},
			{"null organization_id", `{"first_name":"A","last_name":"B","email":"a@example.com","role":"app_user","organization_id":null}`, "organization_id"},
			{"bad e-mail", `{"first_name":"A","last_name":"B","email":"not-an-address","role":"app_user","organization_id":"` + orgA.String() + `"}`, "email"},
			{"unknown role", `{"first_name":"A","last_name":"B","email":"a@example.com","role":"admin","organization_id":"` + orgA.String() + `"}`, "role"},
			{"first name too long", `{"first_name":"` + long + `","last_name":"B","email":"a@example.com","role":"app_user","organization_id":"` + orgA.String() + `"}`, "first_name"},
			{"last name too long", `{"first_name":"A","last_name":"` + long + `","email":"a@example.com","role":"app_user","organization_id":"` + orgA.String() + `"}`, "last_name"},
			{"blank first name", `{"first_name":"   ","last_name":"B","email":"a@example.com","role":"app_user","organization_id":"` + orgA.String() + `"}`, "first_name"},
		} {
			res, err := bo.API.AdminCreateUserWithBodyWithResponse(ctx, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusUnprocessableEntity {
				t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
				continue
			}
			if d := res.JSON422.Detail; len(d) == 0 || len(d[0].Loc) < 2 || d[0].Loc[0] != "body" || d[0].Loc[1] != c.field {
				t.Errorf("%s: detail %+v, want loc [body %s]", c.name, d, c.field)
			}
		}
	})
}
