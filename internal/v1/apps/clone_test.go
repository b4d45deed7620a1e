package apps_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

// contents counts what a copy carries.
type contents struct{ Tags, Workers, Groups, Jobs int }

func contentsOf(t *testing.T, env *testkit.Env, app uuid.UUID) contents {
	t.Helper()
	var c contents
	if err := env.DB.QueryRow(`SELECT (SELECT count(*) FROM app_tags WHERE app_id = $1), (SELECT count(*) FROM app_workers WHERE app_id = $1),
		(SELECT count(*) FROM app_worker_groups WHERE app_id = $1), (SELECT count(*) FROM jobs WHERE app_id = $1)`, app).
		Scan(&c.Tags, &c.Workers, &c.Groups, &c.Jobs); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCloneApp(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	manager := env.User(t, org, auth.RoleAppUser)
	labeler, labelerEmail := env.NewUser(t, org, auth.RoleAppUser)
	bo := env.User(t, env.Org(t), auth.RoleBackoffice)
	flow := appstest.Flow(t, env.DB, org, "F", flowDef)
	src := create(t, admin, nil, v1api.AppInput{Name: new("Source"), Description: nullable.NewNullableWithValue("d"),
		ApiId: nullable.NewNullableWithValue(flow), Settings: &v1api.AppSettings{ReviewRate: new(float32(0.3))}})
	appstest.Member(t, env.DB, src.Id, manager.UserID, "MANAGER")
	appstest.Member(t, env.DB, src.Id, labeler, "LABELER")
	appstest.GroupOnApp(t, env.DB, src.Id, appstest.Group(t, env.DB, org, "g"), "REVIEWER")
	if _, err := env.DB.Exec(`INSERT INTO app_tags (app_id, tag, organization_id, color) VALUES ($1, 'red', $2, '#ff0000')`, src.Id, org); err != nil {
		t.Fatal(err)
	}
	appstest.Job(t, env.DB, org, src.Id, appstest.JobSpec{})
	ctx := context.Background()
	clone := func(c *testkit.Caller, mode string, body v1api.AppClone, want int) *v1api.App {
		t.Helper()
		p := &v1api.CloneAppParams{}
		if mode != "" {
			p.CloneMode = new(v1api.CloneAppParamsCloneMode(mode))
		}
		res, err := c.V1.CloneAppWithResponse(ctx, src.Id, p, body)
		appstest.Expect(t, res, err, want)
		return res.JSON200
	}

	// FULL_COPY is the default and numbers default names that are taken.
	a := clone(manager, "", v1api.AppClone{}, http.StatusOK)
	if a.Name != "Source (copy)" || a.OrganizationId != org || *a.OwnerId != manager.UserID || *a.ApiId != flow ||
		*a.Settings.ReviewRate != 0.3 || *a.Description != "d" || a.Id == src.Id {
		t.Errorf("full copy %+v", a)
	}
	if c := contentsOf(t, env, a.Id); c != (contents{Tags: 1, Workers: 2, Groups: 1}) {
		t.Errorf("full copy carries %+v", c)
	}
	b := clone(manager, "FULL_COPY", v1api.AppClone{IncludeTags: new(false), IncludeMembers: new(false)}, http.StatusOK)
	if b.Name != "Source (copy 2)" || contentsOf(t, env, b.Id) != (contents{}) {
		t.Errorf("copy without tags and members: %s %+v", b.Name, contentsOf(t, env, b.Id))
	}
	clone(manager, "", v1api.AppClone{Name: new("source (COPY)")}, http.StatusBadRequest)

	// ORGANIZATION_OWNED_COPY: org_admin of the target organization only; members stay behind.
	clone(manager, "ORGANIZATION_OWNED_COPY", v1api.AppClone{}, http.StatusForbidden)
	clone(admin, "ORGANIZATION_OWNED_COPY", v1api.AppClone{OrganizationId: &other}, http.StatusForbidden)
	o := clone(admin, "ORGANIZATION_OWNED_COPY", v1api.AppClone{Name: new("org owned")}, http.StatusOK)
	if c := contentsOf(t, env, o.Id); c != (contents{Tags: 1}) || o.OrganizationId != org {
		t.Errorf("organization-owned copy carries %+v", c)
	}

	// MEMBER_OWNED_COPY: the owner is the only member, as MANAGER.
	m := clone(manager, "MEMBER_OWNED_COPY", v1api.AppClone{Name: new("for the labeler"), OwnerUsername: new(labelerEmail)}, http.StatusOK)
	var role string
	if err := env.DB.Get(&role, `SELECT role FROM app_workers WHERE app_id = $1 AND user_id = $2`, m.Id, labeler); err != nil ||
		role != "MANAGER" || *m.OwnerId != labeler || contentsOf(t, env, m.Id).Workers != 1 || contentsOf(t, env, m.Id).Groups != 0 {
		t.Errorf("member-owned copy: owner %v role %q %+v", m.OwnerId, role, contentsOf(t, env, m.Id))
	}
	clone(manager, "MEMBER_OWNED_COPY", v1api.AppClone{OwnerUsername: new("nobody@example.com")}, http.StatusNotFound)

	// SYS_ADMIN: backoffice only, into any organization; the flow and members stay in theirs.
	clone(admin, "SYS_ADMIN", v1api.AppClone{}, http.StatusForbidden)
	clone(bo, "SYS_ADMIN", v1api.AppClone{OrganizationId: new(uuid.New())}, http.StatusNotFound)
	s := clone(bo, "SYS_ADMIN", v1api.AppClone{OrganizationId: &other}, http.StatusOK)
	if s.OrganizationId != other || s.ApiId != nil || contentsOf(t, env, s.Id) != (contents{Tags: 1}) || s.Name != "Source (copy)" {
		t.Errorf("sys-admin copy %+v carries %+v", s, contentsOf(t, env, s.Id))
	}
}

// TestCloneAppWithoutBody copies with the defaults when the request has no body at all, with or
// without a Content-Type: every field of the body is optional, and so is the body.
func TestCloneAppWithoutBody(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	src := create(t, admin, nil, v1api.AppInput{Name: new("Bare")})
	if _, err := env.DB.Exec(`INSERT INTO app_tags (app_id, tag, organization_id) VALUES ($1, 'red', $2)`, src.Id, org); err != nil {
		t.Fatal(err)
	}
	for i, contentType := range []string{"", "application/json"} {
		res, err := admin.V1.CloneAppWithBodyWithResponse(context.Background(), src.Id, nil, contentType, nil)
		appstest.Expect(t, res, err, http.StatusOK)
		want := "Bare (copy)"
		if i > 0 {
			want = "Bare (copy 2)"
		}
		if a := res.JSON200; a.Name != want || a.OrganizationId != org || contentsOf(t, env, a.Id).Tags != 1 {
			t.Errorf("Content-Type %q: copy %+v carries %+v", contentType, a, contentsOf(t, env, a.Id))
		}
	}
}
