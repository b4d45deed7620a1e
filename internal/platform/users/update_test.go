package users_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func TestGetUser(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	adminA, adminB := env.User(t, orgA, auth.RoleOrgAdmin), env.User(t, orgB, auth.RoleOrgAdmin)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	member := env.User(t, orgA, auth.RoleAppUser)
	ctx := context.Background()

	for _, c := range append([]refusal{
		{"org_admin, own organization", adminA, member.UserID, http.StatusOK},
		{"backoffice, any organization", bo, member.UserID, http.StatusOK},
	}, userRefusals(env, adminB, member)...) {
		res, err := c.caller.API.AdminGetUserWithResponse(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.want {
			t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
			continue
		}
		if c.want == http.StatusOK {
			if u := res.JSON200; u.Id != member.UserID || u.Status != platformapi.UserStatusActive || string(u.Email) != member.Email || u.ModifiedBy != "system" {
				t.Errorf("%s: got %+v", c.name, u)
			}
		}
	}
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	bo := env.User(t, orgA, auth.RoleBackoffice)
	ctx := context.Background()
	update := func(c *testkit.Caller, id uuid.UUID, body platformapi.UpdateUserRequest) *platformapi.AdminUpdateUserResponse {
		t.Helper()
		res, err := c.API.AdminUpdateUserWithResponse(ctx, id, body)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("names and role change; the e-mail stays", func(t *testing.T) {
		t.Parallel()
		member := env.User(t, orgA, auth.RoleAppUser)
		res, err := adminA.API.AdminUpdateUserWithBodyWithResponse(ctx, member.UserID, "application/json",
			strings.NewReader(`{"first_name":" Alan ","last_name":"Turing","role":"org_admin","email":"new@example.com"}`))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		u := res.JSON200
		if u.FirstName != "Alan" || u.LastName != "Turing" || u.Role != platformapi.OrgAdmin || string(u.Email) != member.Email ||
			u.ModifiedBy != adminA.UserID.String() {
			t.Errorf("got %+v", u)
		}
		// The role applies to the already issued token at once.
		list, err := member.API.AdminListUsersWithResponse(ctx, nil)
		if err != nil || list.StatusCode() != http.StatusOK {
			t.Errorf("promoted user listing users: %v %d", err, list.StatusCode())
		}
	})

	t.Run("callers cannot change their own role or deactivate themselves", func(t *testing.T) {
		t.Parallel()
		self := env.User(t, orgA, auth.RoleOrgAdmin)
		for name, body := range map[string]platformapi.UpdateUserRequest{
			"role":       {Role: new(platformapi.AppUser)},
			"deactivate": {IsActive: new(false)},
		} {
			if res := update(self, self.UserID, body); res.StatusCode() != http.StatusConflict || code(res.JSON409) != "cannot_modify_self" {
				t.Errorf("%s: status %d: %s", name, res.StatusCode(), res.Body)
			}
		}
		if res := update(self, self.UserID, platformapi.UpdateUserRequest{FirstName: new("Me"), Role: new(platformapi.OrgAdmin), IsActive: new(true)}); res.StatusCode() != http.StatusOK || res.JSON200.FirstName != "Me" {
			t.Errorf("own names with unchanged role: status %d: %s", res.StatusCode(), res.Body)
		}
		res, err := self.API.AdminDeactivateUserWithResponse(ctx, self.UserID)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "cannot_modify_self" {
			t.Errorf("deactivate route: status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("org_admin cannot grant or change the backoffice role", func(t *testing.T) {
		t.Parallel()
		member := env.User(t, orgA, auth.RoleAppUser)
		if res := update(adminA, member.UserID, platformapi.UpdateUserRequest{Role: new(platformapi.Backoffice)}); res.StatusCode() != http.StatusForbidden {
			t.Errorf("grant: status %d: %s", res.StatusCode(), res.Body)
		}
		staff, _ := env.NewUser(t, orgA, auth.RoleBackoffice)
		if res := update(adminA, staff, platformapi.UpdateUserRequest{Role: new(platformapi.AppUser)}); res.StatusCode() != http.StatusForbidden {
			t.Errorf("change: status %d: %s", res.StatusCode(), res.Body)
		}
		if res := update(bo, member.UserID, platformapi.UpdateUserRequest{Role: new(platformapi.Backoffice)}); res.StatusCode() != http.StatusOK || res.JSON200.Role != platformapi.Backoffice {
			t.Errorf("backoffice grants: status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("is_active false deactivates at once; true brings back active or invited", func(t *testing.T) {
		t.Parallel()
		member := env.User(t, orgA, auth.RoleAppUser)
		if res := update(adminA, member.UserID, platformapi.UpdateUserRequest{IsActive: new(false)}); res.StatusCode() != http.StatusOK || res.JSON200.Status != platformapi.UserStatusDeactivated {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		if got := profileStatus(t, member); got != http.StatusUnauthorized {
			t.Errorf("deactivated user's token: %d, want 401", got)
		}
		if res := update(adminA, member.UserID, platformapi.UpdateUserRequest{IsActive: new(true)}); res.StatusCode() != http.StatusOK || res.JSON200.Status != platformapi.UserStatusActive {
			t.Errorf("reactivate: status %d: %s", res.StatusCode(), res.Body)
		}
		body := person(&orgA)
		body.IsActive = new(false)
		invited := createUser(t, adminA, body)
		if res := update(adminA, invited.Id, platformapi.UpdateUserRequest{IsActive: new(true)}); res.StatusCode() != http.StatusOK || res.JSON200.Status != platformapi.UserStatusInvited {
			t.Errorf("reactivate never-accepted: status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		stranger := env.User(t, orgB, auth.RoleAppUser)
		for _, c := range userRefusals(env, adminA, stranger) {
			if res := update(c.caller, c.id, platformapi.UpdateUserRequest{FirstName: new("X")}); res.StatusCode() != c.want {
				t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
			}
		}
		for _, body := range []string{`{"first_name":"` + strings.Repeat("x", 101) + `"}`, `{"last_name":""}`, `{"last_name":"  "}`, `{"role":"root"}`} {
			res, err := adminA.API.AdminUpdateUserWithBodyWithResponse(ctx, adminA.UserID, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusUnprocessableEntity {
				t.Errorf("%s: status %d: %s", body, res.StatusCode(), res.Body)
			}
		}
	})
}

func TestDeactivateUser(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	ctx := context.Background()

	member := env.User(t, orgA, auth.RoleAppUser)
	key := env.KeyCaller(t, orgA, auth.RoleAppUser)
	invited := createUser(t, adminA, person(&orgA))

	res, err := adminA.API.AdminDeactivateUserWithResponse(ctx, member.UserID)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Status != platformapi.UserStatusDeactivated || res.JSON200.ModifiedBy != adminA.UserID.String() {
		t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
	}
	if got := profileStatus(t, member); got != http.StatusUnauthorized {
		t.Errorf("token after deactivation: %d, want 401", got)
	}
	var open int
	if err := env.DB.Get(&open, `SELECT count(*) FROM auth_sessions WHERE user_id = $1 AND revoked_at IS NULL`, member.UserID); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d sessions still open", open)
	}
	again, err := adminA.API.AdminDeactivateUserWithResponse(ctx, member.UserID)
	if err != nil {
		t.Fatal(err)
	}
	if again.StatusCode() != http.StatusOK || !again.JSON200.UpdatedAt.Equal(res.JSON200.UpdatedAt) {
		t.Errorf("again: status %d: %s", again.StatusCode(), again.Body)
	}

	// The invitation link stops working with the deactivation.
	if res, err := adminA.API.AdminDeactivateUserWithResponse(ctx, invited.Id); err != nil || res.StatusCode() != http.StatusOK {
		t.Fatalf("deactivate invited: %v", err)
	}
	var pending int
	if err := env.DB.Get(&pending, `SELECT count(*) FROM auth_link_tokens WHERE user_id = $1 AND used_at IS NULL`, invited.Id); err != nil {
		t.Fatal(err)
	}
	if pending != 0 {
		t.Errorf("%d links still pending", pending)
	}

	// An API key is refused while its user is deactivated and works again after reactivation.
	if got := profileStatus(t, key); got != http.StatusOK {
		t.Fatalf("key before: %d", got)
	}
	if res, err := adminA.API.AdminDeactivateUserWithResponse(ctx, key.UserID); err != nil || res.StatusCode() != http.StatusOK {
		t.Fatalf("deactivate key owner: %v", err)
	}
	if got := profileStatus(t, key); got != http.StatusUnauthorized {
		t.Errorf("key while deactivated: %d, want 401", got)
	}
	if res, err := adminA.API.AdminUpdateUserWithResponse(ctx, key.UserID, platformapi.UpdateUserRequest{IsActive: new(true)}); err != nil || res.StatusCode() != http.StatusOK {
		t.Fatalf("reactivate key owner: %v", err)
	}
	if got := profileStatus(t, key); got != http.StatusOK {
		t.Errorf("key after reactivation: %d, want 200", got)
	}

	stranger := env.User(t, orgB, auth.RoleAppUser)
	for _, c := range userRefusals(env, adminA, stranger) {
		res, err := c.caller.API.AdminDeactivateUserWithResponse(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.want {
			t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
		}
	}
	if got := profileStatus(t, stranger); got != http.StatusOK {
		t.Errorf("a refused call changed the stranger: %d", got)
	}
}
