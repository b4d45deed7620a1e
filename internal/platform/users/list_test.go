package users_test

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func emails(us []platformapi.UserResponse) []string {
	var out []string
	for _, u := range us {
		out = append(out, string(u.Email))
	}
	return out
}

func TestListUsers(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	ctx := context.Background()

	tag := uuid.NewString()[:8]
	var made []string
	for i, role := range []platformapi.UserRole{platformapi.AppUser, platformapi.OrgAdmin, platformapi.AppUser} {
		body := person(&orgA)
		body.Email = newEmail(string("cba"[i]) + "-" + tag)
		body.Role = role
		body.IsActive = new(i != 2)
		made = append(made, string(createUser(t, adminA, body).Email))
	}
	sort.Strings(made)
	other := person(&orgB)
	other.Email = newEmail("z-" + tag)
	createUser(t, bo, other)

	upper := strings.ToUpper(tag)
	list := func(c *testkit.Caller, p platformapi.AdminListUsersParams) *platformapi.AdminListUsersResponse {
		t.Helper()
		res, err := c.API.AdminListUsersWithResponse(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("org_admin sees its organization, sorted by e-mail", func(t *testing.T) {
		t.Parallel()
		res := list(adminA, platformapi.AdminListUsersParams{Email: &upper})
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		if got := emails(res.JSON200.Users); strings.Join(got, " ") != strings.Join(made, " ") || res.JSON200.Total != 3 {
			t.Errorf("got %v (total %d), want %v", got, res.JSON200.Total, made)
		}
		all := list(adminA, platformapi.AdminListUsersParams{})
		for _, u := range all.JSON200.Users {
			if u.OrganizationId != orgA {
				t.Errorf("org_admin sees %s of %s", u.Email, u.OrganizationId)
			}
		}
		// Three made here and the admin itself; parallel subtests may add more to the organization.
		if all.JSON200.Total < 4 || len(all.JSON200.Users) != all.JSON200.Total {
			t.Errorf("%d users of total %d, want at least 4", len(all.JSON200.Users), all.JSON200.Total)
		}
	})

	t.Run("filters and paging", func(t *testing.T) {
		t.Parallel()
		admins := platformapi.OrgAdmin
		if got := emails(list(adminA, platformapi.AdminListUsersParams{Email: &tag, Role: &admins}).JSON200.Users); len(got) != 1 || got[0] != made[1] {
			t.Errorf("role filter: %v", got)
		}
		if got := emails(list(adminA, platformapi.AdminListUsersParams{Email: &tag, IsActive: new(false)}).JSON200.Users); len(got) != 1 || got[0] != made[0] {
			t.Errorf("is_active filter: %v", got)
		}
		res := list(adminA, platformapi.AdminListUsersParams{Email: &tag, Page: new(2), Limit: new(2)})
		if got := emails(res.JSON200.Users); len(got) != 1 || got[0] != made[2] || res.JSON200.Total != 3 || res.JSON200.Page != 2 || res.JSON200.Limit != 2 {
			t.Errorf("page 2: %v %+v", got, res.JSON200)
		}
		if got := list(adminA, platformapi.AdminListUsersParams{Email: new("%")}).JSON200.Users; len(got) != 0 {
			t.Errorf("%% is not a wildcard: %v", emails(got))
		}
	})

	t.Run("org_admin naming another organization gets an empty page", func(t *testing.T) {
		t.Parallel()
		res := list(adminA, platformapi.AdminListUsersParams{OrganizationId: &orgB})
		if res.StatusCode() != http.StatusOK || len(res.JSON200.Users) != 0 || res.JSON200.Total != 0 {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("backoffice sees every organization and may narrow to one", func(t *testing.T) {
		t.Parallel()
		if got := list(bo, platformapi.AdminListUsersParams{Email: &tag}).JSON200.Total; got != 4 {
			t.Errorf("all organizations: total %d, want 4", got)
		}
		res := list(bo, platformapi.AdminListUsersParams{Email: &tag, OrganizationId: &orgB})
		if got := emails(res.JSON200.Users); len(got) != 1 || got[0] != string(other.Email) {
			t.Errorf("organization filter: %v", got)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		if res := list(env.User(t, orgA, auth.RoleAppUser), platformapi.AdminListUsersParams{}); res.StatusCode() != http.StatusForbidden {
			t.Errorf("app_user: status %d", res.StatusCode())
		}
		res, err := env.API.AdminListUsersWithResponse(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusUnauthorized {
			t.Errorf("anonymous: status %d", res.StatusCode())
		}
		bad, err := adminA.API.AdminListUsersWithResponse(ctx, &platformapi.AdminListUsersParams{Role: new(platformapi.UserRole("admin"))})
		if err != nil {
			t.Fatal(err)
		}
		if bad.StatusCode() != http.StatusUnprocessableEntity {
			t.Errorf("unknown role: status %d", bad.StatusCode())
		}
	})

	t.Run("users of an organization", func(t *testing.T) {
		t.Parallel()
		orgList := func(c *testkit.Caller, id uuid.UUID) *platformapi.AdminListOrganizationUsersResponse {
			t.Helper()
			res, err := c.API.AdminListOrganizationUsersWithResponse(ctx, id, &platformapi.AdminListOrganizationUsersParams{Email: &tag})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if res := orgList(adminA, orgA); res.StatusCode() != http.StatusOK || strings.Join(emails(res.JSON200.Users), " ") != strings.Join(made, " ") {
			t.Errorf("own: status %d: %s", res.StatusCode(), res.Body)
		}
		if res := orgList(bo, orgB); res.StatusCode() != http.StatusOK || res.JSON200.Total != 1 {
			t.Errorf("backoffice: status %d: %s", res.StatusCode(), res.Body)
		}
		for name, c := range map[string]struct {
			caller *testkit.Caller
			id     uuid.UUID
			want   int
		}{
			"org_admin, another organization":  {adminA, orgB, http.StatusNotFound},
			"org_admin, missing organization":  {adminA, uuid.New(), http.StatusNotFound},
			"backoffice, missing organization": {bo, uuid.New(), http.StatusNotFound},
			"app_user":                         {env.User(t, orgA, auth.RoleAppUser), orgA, http.StatusForbidden},
		} {
			if res := orgList(c.caller, c.id); res.StatusCode() != c.want {
				t.Errorf("%s: status %d: %s", name, res.StatusCode(), res.Body)
			}
		}
	})
}
