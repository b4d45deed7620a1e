package workers_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func TestWorkerGroups(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	u1, _ := env.NewUser(t, org, auth.RoleAppUser)
	u2, _ := env.NewUser(t, org, auth.RoleAppUser)
	outsider, _ := env.NewUser(t, other, auth.RoleAppUser)
	w1, w2, wOut := appstest.WorkerID(t, env.DB, u1), appstest.WorkerID(t, env.DB, u2), appstest.WorkerID(t, env.DB, outsider)
	ctx := context.Background()

	res, err := admin.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: " Night shift ", WorkerIds: &[]int64{w2, w1, w2}})
	appstest.Expect(t, res, err, http.StatusCreated)
	g := *res.JSON201
	if got, want := groupText(g), fmt.Sprint("Night shift", 2, []int64{w1, w2}); got != want {
		t.Errorf("created %s, want %s", got, want)
	}
	id := g.WorkerGroupId

	r, err := admin.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: "NIGHT SHIFT"})
	appstest.Expect(t, r, err, http.StatusConflict)
	r, err = admin.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: "with outsider", WorkerIds: &[]int64{w1, wOut}})
	appstest.Expect(t, r, err, http.StatusNotFound)
	r, err = admin.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: "   "})
	appstest.Expect(t, r, err, http.StatusBadRequest)
	var n int
	_ = env.DB.Get(&n, `SELECT count(*) FROM worker_groups WHERE organization_id = $1`, org)
	if n != 1 {
		t.Errorf("%d groups after refused creations, want 1", n)
	}

	// Membership: adding twice changes nothing; removing a non-member is 404.
	add, err := admin.V1.AddWorkerGroupMemberWithResponse(ctx, id, w1, nil)
	appstest.Expect(t, add, err, http.StatusOK)
	if add.JSON200.MemberCount != 2 || !add.JSON200.UpdatedAt.Equal(g.UpdatedAt) {
		t.Errorf("adding a member twice: %+v", add.JSON200)
	}
	del, err := admin.V1.RemoveWorkerGroupMemberWithResponse(ctx, id, w1)
	appstest.Expect(t, del, err, http.StatusNoContent)
	del, err = admin.V1.RemoveWorkerGroupMemberWithResponse(ctx, id, w1)
	appstest.Expect(t, del, err, http.StatusNotFound)
	get, err := admin.V1.GetWorkerGroupWithResponse(ctx, id, nil)
	appstest.Expect(t, get, err, http.StatusOK)
	if fmt.Sprint(get.JSON200.WorkerIds) != fmt.Sprint([]int64{w2}) || !get.JSON200.UpdatedAt.After(g.UpdatedAt) {
		t.Errorf("after removal %+v", get.JSON200)
	}

	// Rename, with the name of another group refused.
	r, err = admin.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: "Day shift"})
	appstest.Expect(t, r, err, http.StatusCreated)
	ren, err := admin.V1.RenameWorkerGroupWithResponse(ctx, id, nil, v1api.WorkerGroupRename{Name: "day SHIFT"})
	appstest.Expect(t, ren, err, http.StatusConflict)
	ren, err = admin.V1.RenameWorkerGroupWithResponse(ctx, id, nil, v1api.WorkerGroupRename{Name: "Evening"})
	appstest.Expect(t, ren, err, http.StatusOK)
	if ren.JSON200.Name != "Evening" || ren.JSON200.MemberCount != 1 {
		t.Errorf("renamed %+v", ren.JSON200)
	}

	list, err := admin.V1.ListWorkerGroupsWithResponse(ctx, &v1api.ListWorkerGroupsParams{SortBy: new(v1api.ListWorkerGroupsParamsSortBy("name"))})
	appstest.Expect(t, list, err, http.StatusOK)
	if l := list.JSON200; l.Total != 2 || l.Items[0].Name != "Day shift" || l.Items[1].Name != "Evening" || l.Items[0].WorkerIds == nil {
		t.Errorf("list %+v", l)
	}

	d, err := admin.V1.DeleteWorkerGroupWithResponse(ctx, id)
	appstest.Expect(t, d, err, http.StatusNoContent)
	d, err = admin.V1.DeleteWorkerGroupWithResponse(ctx, id)
	appstest.Expect(t, d, err, http.StatusNotFound)
}

// TestWorkerGroupAccess: groups and workers of another organization are random ids; only
// org_admin, backoffice and integration manage groups.
func TestWorkerGroupAccess(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	key := env.KeyCaller(t, org, auth.RoleIntegration)
	user := env.User(t, org, auth.RoleAppUser)
	member, _ := env.NewUser(t, org, auth.RoleAppUser)
	outsider, _ := env.NewUser(t, other, auth.RoleAppUser)
	own := appstest.Group(t, env.DB, org, "own", member)
	foreign := appstest.Group(t, env.DB, other, "foreign", outsider)
	w, wOut := appstest.WorkerID(t, env.DB, member), appstest.WorkerID(t, env.DB, outsider)
	const nope = int64(1) << 40
	ctx := context.Background()

	type call func(c *testkit.Caller, group, worker int64) (appstest.Response, error)
	routes := map[string]call{
		"get": func(c *testkit.Caller, g, _ int64) (appstest.Response, error) {
			return c.V1.GetWorkerGroupWithResponse(ctx, g, nil)
		},
		"rename": func(c *testkit.Caller, g, _ int64) (appstest.Response, error) {
			return c.V1.RenameWorkerGroupWithResponse(ctx, g, nil, v1api.WorkerGroupRename{Name: "own"})
		},
		"add member": func(c *testkit.Caller, g, w int64) (appstest.Response, error) {
			return c.V1.AddWorkerGroupMemberWithResponse(ctx, g, w, nil)
		},
		"remove member": func(c *testkit.Caller, g, w int64) (appstest.Response, error) {
			return c.V1.RemoveWorkerGroupMemberWithResponse(ctx, g, w)
		},
	}
	for name, f := range routes {
		missing, err := f(admin, nope, w)
		appstest.Expect(t, missing, err, http.StatusNotFound)
		got, err := f(admin, foreign, wOut)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		if name == "add member" || name == "remove member" {
			noWorker, err := f(admin, own, nope)
			appstest.Expect(t, noWorker, err, http.StatusNotFound)
			got, err = f(admin, own, wOut)
			appstest.Expect(t, got, err, http.StatusNotFound)
			appstest.SameAsMissing(t, got, noWorker)
		}
		if name != "get" {
			got, err = f(user, own, w)
			appstest.Expect(t, got, err, http.StatusForbidden)
		}
	}
	ok, err := key.V1.AddWorkerGroupMemberWithResponse(ctx, own, w, nil)
	appstest.Expect(t, ok, err, http.StatusOK)
	got, err := user.V1.GetWorkerGroupWithResponse(ctx, own, nil)
	appstest.Expect(t, got, err, http.StatusOK)
	d, err := admin.V1.DeleteWorkerGroupWithResponse(ctx, foreign)
	appstest.Expect(t, d, err, http.StatusNotFound)
	c, err := user.V1.CreateWorkerGroupWithResponse(ctx, nil, v1api.WorkerGroupInput{Name: "mine"})
	appstest.Expect(t, c, err, http.StatusForbidden)
	l, err := user.V1.ListWorkerGroupsWithResponse(ctx, nil)
	appstest.Expect(t, l, err, http.StatusOK)
	if l.JSON200.Total != 1 || l.JSON200.Items[0].WorkerGroupId != own {
		t.Errorf("list shows %+v", l.JSON200)
	}
}
