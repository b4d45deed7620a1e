package workers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func TestWorkers(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	admin, adminEmail := env.NewUser(t, org, auth.RoleOrgAdmin)
	gone, _ := env.NewUser(t, org, auth.RoleAppUser)
	env.ChangeAccess(t, `UPDATE users SET is_active = false WHERE id = $1`, gone)
	outsider, _ := env.NewUser(t, other, auth.RoleAppUser)
	ctx := context.Background()

	res, err := user.V1.ListWorkersWithResponse(ctx, nil)
	appstest.Expect(t, res, err, http.StatusOK)
	l := res.JSON200
	if l.Total != 2 || len(l.Items) != 2 || l.Page != 0 || l.Size != 10 || l.Items[0].WorkerId >= l.Items[1].WorkerId {
		t.Fatalf("list %+v", l)
	}
	for _, w := range l.Items {
		if w.UserId == gone || w.UserId == outsider || w.Username != *w.Email || !w.IsActive {
			t.Errorf("listed %+v", w)
		}
	}
	res, err = user.V1.ListWorkersWithResponse(ctx, &v1api.ListWorkersParams{UsernameContains: new(strings.ToUpper(adminEmail[:10]))})
	appstest.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Total != 1 || res.JSON200.Items[0].UserId != admin {
		t.Errorf("usernameContains: %+v", res.JSON200)
	}
	res, err = user.V1.ListWorkersWithResponse(ctx, &v1api.ListWorkersParams{SortBy: new(v1api.ListWorkersParamsSortBy("username")),
		OrderBy: new(v1api.ListWorkersParamsOrderBy("desc")), Size: new(1)})
	appstest.Expect(t, res, err, http.StatusOK)
	if want := max(adminEmail, user.Email); res.JSON200.Items[0].Username != want || res.JSON200.Total != 2 {
		t.Errorf("sorted by username desc: %+v, want %s first", res.JSON200, want)
	}
	res, err = user.V1.ListWorkersWithResponse(ctx, &v1api.ListWorkersParams{SortBy: new(v1api.ListWorkersParamsSortBy("name"))})
	appstest.Expect(t, res, err, http.StatusBadRequest)

	get, err := user.V1.GetWorkerWithResponse(ctx, appstest.WorkerID(t, env.DB, gone), nil)
	appstest.Expect(t, get, err, http.StatusOK)
	if get.JSON200.UserId != gone || get.JSON200.IsActive {
		t.Errorf("deactivated worker %+v", get.JSON200)
	}
	missing, err := user.V1.GetWorkerWithResponse(ctx, 1<<40, nil)
	appstest.Expect(t, missing, err, http.StatusNotFound)
	foreign, err := user.V1.GetWorkerWithResponse(ctx, appstest.WorkerID(t, env.DB, outsider), nil)
	appstest.Expect(t, foreign, err, http.StatusNotFound)
	appstest.SameAsMissing(t, foreign, missing)
	zero, err := user.V1.GetWorkerWithResponse(ctx, 0, nil)
	appstest.Expect(t, zero, err, http.StatusBadRequest)
	anon, err := env.V1.GetWorkerWithResponse(ctx, 1, nil)
	appstest.Expect(t, anon, err, http.StatusUnauthorized)
}

func groupText(g v1api.WorkerGroup) string {
	return fmt.Sprint(g.Name, g.MemberCount, g.WorkerIds)
}
