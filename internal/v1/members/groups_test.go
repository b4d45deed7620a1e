package members_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func groupRole(r string) v1api.CreateWorkerGroupApp {
	return v1api.CreateWorkerGroupApp{Role: v1api.MemberRole(r)}
}

func TestAppWorkerGroups(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	app := appstest.App(t, env.DB, org, "staffed", nil)
	a := env.User(t, org, auth.RoleAppUser)
	b, _ := env.NewUser(t, org, auth.RoleAppUser)
	alpha := appstest.Group(t, env.DB, org, "alpha", a.UserID, b)
	beta := appstest.Group(t, env.DB, org, "Beta", b)
	ctx := context.Background()

	// Before the group is added, its member cannot see the app; after, it acts with the group's role.
	denied, err := a.V1.UpdateAppWithResponse(ctx, app, nil, v1api.AppInput{})
	appstest.Expect(t, denied, err, http.StatusNotFound)
	add, err := admin.V1.AddAppWorkerGroupWithResponse(ctx, app, alpha, nil, groupRole("MANAGER"))
	appstest.Expect(t, add, err, http.StatusOK)
	if g := add.JSON200; g.WorkerGroupId != alpha || g.Name != "alpha" || g.MemberCount != 2 || g.Role != "MANAGER" || g.AppUuid != app {
		t.Errorf("added %+v", g)
	}
	granted, err := a.V1.UpdateAppWithResponse(ctx, app, nil, v1api.AppInput{})
	appstest.Expect(t, granted, err, http.StatusOK)

	again, err := admin.V1.AddAppWorkerGroupWithResponse(ctx, app, alpha, nil, groupRole("LABELER"))
	appstest.Expect(t, again, err, http.StatusConflict)
	add, err = admin.V1.AddAppWorkerGroupWithResponse(ctx, app, beta, nil, groupRole("LABELER"))
	appstest.Expect(t, add, err, http.StatusOK)

	list, err := admin.V1.ListAppWorkerGroupsWithResponse(ctx, app, &v1api.ListAppWorkerGroupsParams{
		SortBy: new(v1api.ListAppWorkerGroupsParamsSortBy("role"))})
	appstest.Expect(t, list, err, http.StatusOK)
	if l := list.JSON200; l.Total != 2 || l.Items[0].WorkerGroupId != beta || l.Items[1].WorkerGroupId != alpha {
		t.Errorf("list %+v", l)
	}

	// The group's role counts in its members' effective role.
	appstest.Member(t, env.DB, app, b, "LABELER")
	w, err := admin.V1.GetAppWorkerByUsernameWithResponse(ctx, app, mailOf(t, env, b), nil)
	appstest.Expect(t, w, err, http.StatusOK)
	if w.JSON200.Role != "LABELER" || w.JSON200.EffectiveRole != "MANAGER" {
		t.Errorf("worker in a MANAGER group: %+v", w.JSON200)
	}
	up, err := admin.V1.UpdateAppWorkerGroupWithResponse(ctx, app, alpha, nil, groupRole("REVIEWER"))
	appstest.Expect(t, up, err, http.StatusOK)
	if up.JSON200.Role != "REVIEWER" {
		t.Errorf("updated %+v", up.JSON200)
	}
	denied, err = a.V1.UpdateAppWithResponse(ctx, app, nil, v1api.AppInput{})
	appstest.Expect(t, denied, err, http.StatusForbidden)

	// Removing the group releases the jobs of members left without access, not of those who keep it.
	jobA := appstest.Job(t, env.DB, org, app, appstest.JobSpec{AssignedTo: &a.UserID})
	jobB := appstest.Job(t, env.DB, org, app, appstest.JobSpec{AssignedTo: &b})
	del, err := admin.V1.RemoveAppWorkerGroupWithResponse(ctx, app, alpha)
	appstest.Expect(t, del, err, http.StatusNoContent)
	var heldA, heldB *uuid.UUID
	_ = env.DB.Get(&heldA, `SELECT assigned_to FROM jobs WHERE id = $1`, jobA)
	_ = env.DB.Get(&heldB, `SELECT assigned_to FROM jobs WHERE id = $1`, jobB)
	if heldA != nil || heldB == nil || *heldB != b {
		t.Errorf("after removal: job of a held by %v, job of b held by %v", heldA, heldB)
	}
	gone, err := a.V1.GetAppWithResponse(ctx, app, nil)
	appstest.Expect(t, gone, err, http.StatusNotFound)

	for name, res := range map[string]func() (appstest.Response, error){
		"update a non-member group": func() (appstest.Response, error) {
			return admin.V1.UpdateAppWorkerGroupWithResponse(ctx, app, alpha, nil, groupRole("LABELER"))
		},
		"remove a non-member group": func() (appstest.Response, error) { return admin.V1.RemoveAppWorkerGroupWithResponse(ctx, app, alpha) },
	} {
		r, err := res()
		if err != nil || r.StatusCode() != http.StatusNotFound {
			t.Errorf("%s: %v %v", name, r.StatusCode(), err)
		}
	}
}

func mailOf(t *testing.T, env *testkit.Env, user uuid.UUID) string {
	t.Helper()
	var e string
	if err := env.DB.Get(&e, `SELECT email FROM users WHERE id = $1`, user); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAppWorkerGroupAccess: another organization's app or group is exactly a random id; any member
// reads, MANAGER writes.
func TestAppWorkerGroupAccess(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	labeler := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, org, auth.RoleAppUser)
	app := appstest.App(t, env.DB, org, "guarded", nil)
	foreign := appstest.App(t, env.DB, other, "foreign", nil)
	appstest.Member(t, env.DB, app, labeler.UserID, "LABELER")
	own := appstest.Group(t, env.DB, org, "own")
	foreignGroup := appstest.Group(t, env.DB, other, "theirs")
	appstest.GroupOnApp(t, env.DB, foreign, foreignGroup, "LABELER")
	ctx := context.Background()

	type call func(c *testkit.Caller, app uuid.UUID, group int64) (appstest.Response, error)
	routes := map[string]call{
		"list": func(c *testkit.Caller, a uuid.UUID, _ int64) (appstest.Response, error) {
			return c.V1.ListAppWorkerGroupsWithResponse(ctx, a, nil)
		},
		"add": func(c *testkit.Caller, a uuid.UUID, g int64) (appstest.Response, error) {
			return c.V1.AddAppWorkerGroupWithResponse(ctx, a, g, nil, groupRole("LABELER"))
		},
		"update": func(c *testkit.Caller, a uuid.UUID, g int64) (appstest.Response, error) {
			return c.V1.UpdateAppWorkerGroupWithResponse(ctx, a, g, nil, groupRole("REVIEWER"))
		},
		"remove": func(c *testkit.Caller, a uuid.UUID, g int64) (appstest.Response, error) {
			return c.V1.RemoveAppWorkerGroupWithResponse(ctx, a, g)
		},
	}
	for _, name := range []string{"list", "add", "update", "remove"} {
		f := routes[name]
		missing, err := f(admin, uuid.New(), own)
		appstest.Expect(t, missing, err, http.StatusNotFound)
		got, err := f(admin, foreign, foreignGroup)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		got, err = f(stranger, app, own)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		if name != "list" {
			noGroup, err := f(admin, app, 1<<40)
			appstest.Expect(t, noGroup, err, http.StatusNotFound)
			got, err = f(admin, app, foreignGroup)
			appstest.Expect(t, got, err, http.StatusNotFound)
			appstest.SameAsMissing(t, got, noGroup)
		}
		want := map[string]int{"list": 200, "add": 403, "update": 403, "remove": 403}[name]
		got, err = f(labeler, app, own)
		appstest.Expect(t, got, err, want)
		want = map[string]int{"list": 200, "add": 200, "update": 200, "remove": 204}[name]
		got, err = f(admin, app, own)
		appstest.Expect(t, got, err, want)
	}
}
