package orgs_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// code returns the error code of an ErrorResponse, or "" when there is none.
func code(e *platformapi.ErrorResponse) string {
	if e == nil || e.Error.Code == nil {
		return ""
	}
	return *e.Error.Code
}

// uniqueName returns an organization name no other test uses.
func uniqueName(prefix string) string { return prefix + " " + uuid.NewString()[:8] }

func TestCreateOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	home := env.Org(t)
	bo := env.User(t, home, auth.RoleBackoffice)
	ctx := context.Background()

	t.Run("created trimmed, active, recording who made it", func(t *testing.T) {
		t.Parallel()
		name := uniqueName("Acme")
		res, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: "  " + name + "\t"})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusCreated {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		o := res.JSON201
		if o.Name != name || o.IsActive == nil || !*o.IsActive {
			t.Errorf("got %+v, want name %q, active", o, name)
		}
		var by string
		if err := env.DB.Get(&by, `SELECT modified_by FROM organizations WHERE id = $1`, o.Id); err != nil {
			t.Fatal(err)
		}
		if by != bo.UserID.String() {
			t.Errorf("modified_by = %q, want %s", by, bo.UserID)
		}
	})

	t.Run("created deactivated", func(t *testing.T) {
		t.Parallel()
		res, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{
			Name: uniqueName("Off"), IsActive: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusCreated || *res.JSON201.IsActive {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("a taken name answers 409 whatever its case and surrounding spaces", func(t *testing.T) {
		t.Parallel()
		name := uniqueName("Dup")
		first, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: name})
		if err != nil || first.StatusCode() != http.StatusCreated {
			t.Fatalf("first: %v %s", err, first.Body)
		}
		for _, again := range []string{name, strings.ToUpper(name), "  " + strings.ToLower(name) + "  "} {
			res, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: again})
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "conflict" {
				t.Errorf("%q: status %d: %s", again, res.StatusCode(), res.Body)
			}
		}
	})

	t.Run("invalid names answer 422", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"", "   ", "\u00a0\u2003", strings.Repeat("x", 201)} {
			res, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusUnprocessableEntity {
				t.Errorf("%q: status %d: %s", name, res.StatusCode(), res.Body)
				continue
			}
			if d := res.JSON422.Detail; len(d) == 0 || len(d[0].Loc) < 2 || d[0].Loc[1] != "name" {
				t.Errorf("%q: detail %+v, want loc [body name]", name, d)
			}
		}
	})

	t.Run("401 without credentials", func(t *testing.T) {
		t.Parallel()
		res, err := env.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: uniqueName("Anon")})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusUnauthorized {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("403 for org_admin", func(t *testing.T) {
		t.Parallel()
		admin := env.User(t, home, auth.RoleOrgAdmin)
		res, err := admin.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: uniqueName("Nope")})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusForbidden {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})
}

func TestListOrganizations(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	ctx := context.Background()
	tag := uuid.NewString()[:8]
	// Created out of order, to see the list sorted by name, ignoring case.
	for _, n := range []struct {
		name   string
		active bool
	}{{"c-" + tag, true}, {"A-" + tag, true}, {"b-" + tag, false}} {
		res, err := bo.API.AdminCreateOrganizationWithResponse(ctx, platformapi.CreateOrganizationRequest{Name: n.name, IsActive: &n.active})
		if err != nil || res.StatusCode() != http.StatusCreated {
			t.Fatalf("create %s: %v %s", n.name, err, res.Body)
		}
	}
	names := func(p *platformapi.AdminListOrganizationsParams) ([]string, int) {
		t.Helper()
		res, err := bo.API.AdminListOrganizationsWithResponse(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		var out []string
		for _, o := range res.JSON200.Organizations {
			out = append(out, o.Name)
		}
		return out, res.JSON200.Total
	}
	upper := strings.ToUpper(tag)
	if got, total := names(&platformapi.AdminListOrganizationsParams{Name: &upper}); strings.Join(got, ",") != "A-"+tag+",b-"+tag+",c-"+tag || total != 3 {
		t.Errorf("name filter: %v total %d", got, total)
	}
	if got, total := names(&platformapi.AdminListOrganizationsParams{Name: &tag, IsActive: new(false)}); len(got) != 1 || got[0] != "b-"+tag || total != 1 {
		t.Errorf("is_active filter: %v total %d", got, total)
	}
	if got, total := names(&platformapi.AdminListOrganizationsParams{Name: &tag, Page: new(2), Limit: new(2)}); len(got) != 1 || got[0] != "c-"+tag || total != 3 {
		t.Errorf("page 2: %v total %d", got, total)
	}
	if got, _ := names(&platformapi.AdminListOrganizationsParams{Name: new("%")}); len(got) != 0 {
		t.Errorf("%% is not a wildcard: %v", got)
	}
	if got, total := names(nil); total < 4 || len(got) != total {
		t.Errorf("unfiltered: %d of %d", len(got), total)
	}

	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	res, err := admin.API.AdminListOrganizationsWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusForbidden {
		t.Errorf("org_admin: status %d: %s", res.StatusCode(), res.Body)
	}
	res, err = env.API.AdminListOrganizationsWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusUnauthorized {
		t.Errorf("anonymous: status %d: %s", res.StatusCode(), res.Body)
	}
}

func TestGetOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	adminA := env.User(t, orgA, auth.RoleOrgAdmin)
	ctx := context.Background()

	for _, c := range []struct {
		name   string
		caller *testkit.Caller
		id     uuid.UUID
		want   int
	}{
		{"backoffice reads any", bo, orgA, http.StatusOK},
		{"org_admin reads its own", adminA, orgA, http.StatusOK},
		{"org_admin gets 404 for another organization", adminA, orgB, http.StatusNotFound},
		{"org_admin gets 404 for a missing one", adminA, uuid.New(), http.StatusNotFound},
		{"backoffice gets 404 for a missing one", bo, uuid.New(), http.StatusNotFound},
		{"app_user is refused", env.User(t, orgA, auth.RoleAppUser), orgA, http.StatusForbidden},
		{"integration is refused", env.KeyCaller(t, orgA, auth.RoleIntegration), orgA, http.StatusForbidden},
	} {
		res, err := c.caller.API.AdminGetOrganizationWithResponse(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.want {
			t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
		}
		if c.want == http.StatusOK && res.JSON200.Id != c.id {
			t.Errorf("%s: got %s", c.name, res.JSON200.Id)
		}
	}
	res, err := env.API.AdminGetOrganizationWithResponse(ctx, orgA)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusUnauthorized {
		t.Errorf("anonymous: status %d", res.StatusCode())
	}
}

func TestUpdateOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	home := env.Org(t)
	bo := env.User(t, home, auth.RoleBackoffice)
	ctx := context.Background()

	t.Run("rename moves modified_at; a taken name is 409", func(t *testing.T) {
		t.Parallel()
		org, taken := env.Org(t), uniqueName("Taken")
		if _, err := env.DB.Exec(`INSERT INTO organizations (name) VALUES ($1)`, taken); err != nil {
			t.Fatal(err)
		}
		before := modifiedAt(t, env, org)
		name := uniqueName("Renamed")
		res, err := bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{Name: new(" " + name + " ")})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK || res.JSON200.Name != name || !*res.JSON200.IsActive {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		if !res.JSON200.ModifiedAt.After(before) {
			t.Errorf("modified_at %v not after %v", res.JSON200.ModifiedAt, before)
		}
		res, err = bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{Name: new(strings.ToLower(taken))})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "conflict" {
			t.Errorf("taken: status %d: %s", res.StatusCode(), res.Body)
		}
		// Renaming to its own name in another case is not a clash with itself.
		res, err = bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{Name: new(strings.ToUpper(name))})
		if err != nil || res.StatusCode() != http.StatusOK {
			t.Errorf("own name: %v %s", err, res.Body)
		}
	})

	t.Run("invalid input and missing ids", func(t *testing.T) {
		t.Parallel()
		org := env.Org(t)
		for _, name := range []string{"", " \u00a0 ", strings.Repeat("y", 201)} {
			res, err := bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{Name: &name})
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusUnprocessableEntity {
				t.Errorf("%q: status %d: %s", name, res.StatusCode(), res.Body)
			}
		}
		res, err := bo.API.AdminUpdateOrganizationWithResponse(ctx, uuid.New(), platformapi.UpdateOrganizationRequest{Name: new(uniqueName("Ghost"))})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusNotFound {
			t.Errorf("missing: status %d: %s", res.StatusCode(), res.Body)
		}
		admin := env.User(t, org, auth.RoleOrgAdmin)
		res, err = admin.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{Name: new(uniqueName("Mine"))})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusForbidden {
			t.Errorf("org_admin: status %d: %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("is_active false deactivates and true restores API keys", func(t *testing.T) {
		t.Parallel()
		org := env.Org(t)
		key := env.KeyCaller(t, org, auth.RoleAppUser)
		jwt := env.User(t, org, auth.RoleOrgAdmin)
		expectProfile(t, key, http.StatusOK)
		res, err := bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{IsActive: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK || *res.JSON200.IsActive {
			t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
		}
		expectProfile(t, key, http.StatusUnauthorized)
		expectProfile(t, jwt, http.StatusUnauthorized)
		res, err = bo.API.AdminUpdateOrganizationWithResponse(ctx, org, platformapi.UpdateOrganizationRequest{IsActive: new(true)})
		if err != nil || res.StatusCode() != http.StatusOK || !*res.JSON200.IsActive {
			t.Fatalf("reactivate: %v %s", err, res.Body)
		}
		expectProfile(t, key, http.StatusOK)
		// The session ended with the deactivation: its holder signs in again.
		expectProfile(t, jwt, http.StatusUnauthorized)
	})

	t.Run("backoffice cannot deactivate its own organization this way either", func(t *testing.T) {
		t.Parallel()
		res, err := bo.API.AdminUpdateOrganizationWithResponse(ctx, home, platformapi.UpdateOrganizationRequest{IsActive: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusConflict || code(res.JSON409) != "cannot_deactivate_own_organization" {
			t.Errorf("status %d: %s", res.StatusCode(), res.Body)
		}
	})
}

func TestDeactivateOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	home := env.Org(t)
	bo := env.User(t, home, auth.RoleBackoffice)
	ctx := context.Background()

	org := env.Org(t)
	jwt := env.User(t, org, auth.RoleAppUser)
	key := env.KeyCaller(t, org, auth.RoleOrgAdmin)
	bystander := env.User(t, env.Org(t), auth.RoleAppUser)
	expectProfile(t, jwt, http.StatusOK)
	expectProfile(t, key, http.StatusOK)

	res, err := bo.API.AdminDeactivateOrganizationWithResponse(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || *res.JSON200.IsActive {
		t.Fatalf("status %d: %s", res.StatusCode(), res.Body)
	}
	expectProfile(t, jwt, http.StatusUnauthorized)
	expectProfile(t, key, http.StatusUnauthorized)
	expectProfile(t, bystander, http.StatusOK)
	var open int
	if err := env.DB.Get(&open, `SELECT count(*) FROM auth_sessions WHERE organization_id = $1 AND revoked_at IS NULL`, org); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d sessions still open, so refresh tokens would work", open)
	}

	// Deactivating again changes nothing.
	first := res.JSON200.ModifiedAt
	time.Sleep(10 * time.Millisecond)
	res, err = bo.API.AdminDeactivateOrganizationWithResponse(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || *res.JSON200.IsActive || !res.JSON200.ModifiedAt.Equal(first) {
		t.Errorf("again: status %d: %s (modified_at was %v)", res.StatusCode(), res.Body, first)
	}

	for _, c := range []struct {
		name   string
		caller *testkit.Caller
		id     uuid.UUID
		want   int
		code   string
	}{
		{"own organization", bo, home, http.StatusConflict, "cannot_deactivate_own_organization"},
		{"missing organization", bo, uuid.New(), http.StatusNotFound, "not_found"},
		{"org_admin", env.User(t, home, auth.RoleOrgAdmin), home, http.StatusForbidden, "forbidden"},
	} {
		res, err := c.caller.API.AdminDeactivateOrganizationWithResponse(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.want {
			t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
		}
	}
	res, err = env.API.AdminDeactivateOrganizationWithResponse(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusUnauthorized {
		t.Errorf("anonymous: status %d", res.StatusCode())
	}
}

func modifiedAt(t *testing.T, env *testkit.Env, org uuid.UUID) time.Time {
	t.Helper()
	var at time.Time
	if err := env.DB.Get(&at, `SELECT modified_at FROM organizations WHERE id = $1`, org); err != nil {
		t.Fatal(err)
	}
	return at
}

// expectProfile checks whether the caller's credential is accepted right now.
func expectProfile(t *testing.T, c *testkit.Caller, want int) {
	t.Helper()
	res, err := c.API.GetMyProfileWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != want {
		t.Errorf("profile of %s: status %d, want %d: %s", c.Email, res.StatusCode(), want, res.Body)
	}
}
