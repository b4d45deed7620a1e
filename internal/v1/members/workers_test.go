package members_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func role(r string) v1api.CreateWorkerApp { return v1api.CreateWorkerApp{Role: v1api.MemberRole(r)} }

func TestAppWorkers(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	app := appstest.App(t, env.DB, org, "staffed", nil)
	u1, email1 := env.NewUser(t, org, auth.RoleAppUser)
	u2, _ := env.NewUser(t, org, auth.RoleAppUser)
	w1, w2 := appstest.WorkerID(t, env.DB, u1), appstest.WorkerID(t, env.DB, u2)
	appstest.GroupOnApp(t, env.DB, app, appstest.Group(t, env.DB, org, "reviewers", u1), "REVIEWER")
	ctx := context.Background()

	add, err := admin.V1.AddAppWorkerWithResponse(ctx, app, w1, nil, role("LABELER"))
	appstest.Expect(t, add, err, http.StatusOK)
	if a := add.JSON200; a.WorkerId != w1 || a.Username != email1 || string(*a.Email) != email1 || a.AppUuid != app ||
		a.Role != "LABELER" || a.EffectiveRole != "REVIEWER" {
		t.Errorf("added %+v", a)
	}
	again, err := admin.V1.AddAppWorkerWithResponse(ctx, app, w1, nil, role("MANAGER"))
	appstest.Expect(t, again, err, http.StatusConflict)
	add, err = admin.V1.AddAppWorkerWithResponse(ctx, app, w2, nil, role("MANAGER"))
	appstest.Expect(t, add, err, http.StatusOK)
	bad, err := admin.V1.AddAppWorkerWithResponse(ctx, app, w2, nil, role("OWNER"))
	appstest.Expect(t, bad, err, http.StatusBadRequest)

	list, err := admin.V1.ListAppWorkersWithResponse(ctx, app, &v1api.ListAppWorkersParams{SortBy: new(v1api.ListAppWorkersParamsSortBy("role")),
		OrderBy: new(v1api.ListAppWorkersParamsOrderBy("desc"))})
	appstest.Expect(t, list, err, http.StatusOK)
	if l := list.JSON200; l.Total != 2 || l.Items[0].WorkerId != w2 || l.Items[1].WorkerId != w1 || l.Size != 10 {
		t.Errorf("list %+v", l)
	}

	up, err := admin.V1.UpdateAppWorkerWithResponse(ctx, app, w1, nil, role("MANAGER"))
	appstest.Expect(t, up, err, http.StatusOK)
	if up.JSON200.Role != "MANAGER" || up.JSON200.EffectiveRole != "MANAGER" || !up.JSON200.UpdatedAt.After(up.JSON200.AddedAt) {
		t.Errorf("updated %+v", up.JSON200)
	}
	byName, err := admin.V1.GetAppWorkerByUsernameWithResponse(ctx, app, strings.ToUpper(email1), nil)
	appstest.Expect(t, byName, err, http.StatusOK)
	if byName.JSON200.WorkerId != w1 {
		t.Errorf("by username %+v", byName.JSON200)
	}

	// Removing the worker's own membership keeps its group access and releases its held jobs.
	held := appstest.Job(t, env.DB, org, app, appstest.JobSpec{AssignedTo: &u1})
	del, err := admin.V1.RemoveAppWorkerWithResponse(ctx, app, w1)
	appstest.Expect(t, del, err, http.StatusNoContent)
	var holder *uuid.UUID
	_ = env.DB.Get(&holder, `SELECT assigned_to FROM jobs WHERE id = $1`, held)
	if holder != nil {
		t.Errorf("job still held by %v", holder)
	}
	// Access through the group is left: the worker no longer answers by username, yet still sees the app.
	byName, err = admin.V1.GetAppWorkerByUsernameWithResponse(ctx, app, email1, nil)
	appstest.Expect(t, byName, err, http.StatusNotFound)
	c1 := env.SignIn(t, u1)
	seen, err := c1.V1.ListAppWorkersWithResponse(ctx, app, nil)
	appstest.Expect(t, seen, err, http.StatusOK)

	for name, res := range map[string]func() (appstest.Response, error){
		"update a non-member": func() (appstest.Response, error) {
			return admin.V1.UpdateAppWorkerWithResponse(ctx, app, w1, nil, role("LABELER"))
		},
		"remove a non-member": func() (appstest.Response, error) { return admin.V1.RemoveAppWorkerWithResponse(ctx, app, w1) },
	} {
		r, err := res()
		if err != nil || r.StatusCode() != http.StatusNotFound {
			t.Errorf("%s: %v %v", name, r.StatusCode(), err)
		}
	}
}

// TestAppWorkerAccess: another organization's app or worker is exactly a random id; any member reads,
// MANAGER writes; the owner is MANAGER.
func TestAppWorkerAccess(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	owner := env.User(t, org, auth.RoleAppUser)
	labeler := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, org, auth.RoleAppUser)
	app := appstest.App(t, env.DB, org, "guarded", &owner.UserID)
	foreign := appstest.App(t, env.DB, other, "foreign", nil)
	appstest.Member(t, env.DB, app, labeler.UserID, "LABELER")
	target, targetEmail := env.NewUser(t, org, auth.RoleAppUser)
	outsider, outsiderEmail := env.NewUser(t, other, auth.RoleAppUser)
	appstest.Member(t, env.DB, foreign, outsider, "LABELER")
	wt, wOut := appstest.WorkerID(t, env.DB, target), appstest.WorkerID(t, env.DB, outsider)
	ctx := context.Background()

	type call func(c *testkit.Caller, app uuid.UUID, worker int64, username string) (appstest.Response, error)
	routes := map[string]call{
		"list": func(c *testkit.Caller, a uuid.UUID, _ int64, _ string) (appstest.Response, error) {
			return c.V1.ListAppWorkersWithResponse(ctx, a, nil)
		},
		"by username": func(c *testkit.Caller, a uuid.UUID, _ int64, u string) (appstest.Response, error) {
			return c.V1.GetAppWorkerByUsernameWithResponse(ctx, a, u, nil)
		},
		"add": func(c *testkit.Caller, a uuid.UUID, w int64, _ string) (appstest.Response, error) {
			return c.V1.AddAppWorkerWithResponse(ctx, a, w, nil, role("LABELER"))
		},
		"update": func(c *testkit.Caller, a uuid.UUID, w int64, _ string) (appstest.Response, error) {
			return c.V1.UpdateAppWorkerWithResponse(ctx, a, w, nil, role("REVIEWER"))
		},
		"remove": func(c *testkit.Caller, a uuid.UUID, w int64, _ string) (appstest.Response, error) {
			return c.V1.RemoveAppWorkerWithResponse(ctx, a, w)
		},
	}
	for _, name := range []string{"list", "by username", "add", "update", "remove"} {
		f := routes[name]
		missing, err := f(admin, uuid.New(), wt, targetEmail)
		appstest.Expect(t, missing, err, http.StatusNotFound)
		got, err := f(admin, foreign, wOut, outsiderEmail)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		got, err = f(stranger, app, wt, targetEmail)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		if name != "list" {
			noWorker, err := f(owner, app, 1<<40, "nobody@example.com")
			appstest.Expect(t, noWorker, err, http.StatusNotFound)
			got, err = f(owner, app, wOut, outsiderEmail)
			appstest.Expect(t, got, err, http.StatusNotFound)
			appstest.SameAsMissing(t, got, noWorker)
		}
		// By username, the labeler looks itself up; the other routes act on the target worker.
		username := targetEmail
		if name == "by username" {
			username = labeler.Email
		}
		want := map[string]int{"list": 200, "by username": 200, "add": 403, "update": 403, "remove": 403}[name]
		got, err = f(labeler, app, wt, username)
		appstest.Expect(t, got, err, want)
		want = map[string]int{"list": 200, "by username": 200, "add": 200, "update": 200, "remove": 204}[name]
		got, err = f(owner, app, wt, username)
		appstest.Expect(t, got, err, want)
	}
	res, err := env.V1.ListAppWorkersWithResponse(ctx, app, nil)
	appstest.Expect(t, res, err, http.StatusUnauthorized)
}
