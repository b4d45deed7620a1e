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

func TestGetApp(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	flow := appstest.Flow(t, env.DB, org, "Flow", flowDef)
	withFlow := create(t, admin, nil, v1api.AppInput{Name: new("with flow"), ApiId: nullable.NewNullableWithValue(flow)})
	bare := create(t, admin, nil, v1api.AppInput{Name: new("bare")})
	for _, st := range []string{"SCHEDULED", "SCHEDULED", "COMPLETED", "FAILED"} {
		appstest.Job(t, env.DB, org, withFlow.Id, appstest.JobSpec{Status: st})
	}
	ctx := context.Background()

	res, err := admin.V1.GetAppWithResponse(ctx, withFlow.Id, nil)
	appstest.Expect(t, res, err, http.StatusOK)
	s := res.JSON200.JobStats
	if s == nil || s.Total != 4 || s.Scheduled != 2 || s.Completed != 1 || s.Failed != 1 || s.Pending != 0 || *s.Cached || s.CountedAt == nil {
		t.Errorf("job_stats %+v", s)
	}
	if res.JSON200.SuperTasks != nil || *res.JSON200.ApiName != "Flow" {
		t.Errorf("got %+v", res.JSON200)
	}

	res, err = admin.V1.GetAppWithResponse(ctx, withFlow.Id, &v1api.GetAppParams{JobStats: new(false), WithSuperTasks: new(true)})
	appstest.Expect(t, res, err, http.StatusOK)
	if res.JSON200.JobStats != nil {
		t.Errorf("job_stats sent with jobStats=false")
	}
	tasks := *res.JSON200.SuperTasks
	want := []v1api.SuperTask{{Name: "extract", Type: "llm", Position: 0}, {Name: "review", Type: "human_review", Description: new("check it"), Position: 1},
		{Name: "notify", Type: "email", Position: 2}}
	if len(tasks) != 3 {
		t.Fatalf("super_tasks %+v", tasks)
	}
	for i, w := range want {
		g := tasks[i]
		if g.Name != w.Name || g.Type != w.Type || g.Position != w.Position || (w.Description == nil) != (g.Description == nil) {
			t.Errorf("task %d: %+v, want %+v", i, g, w)
		}
	}

	res, err = admin.V1.GetAppWithResponse(ctx, bare.Id, &v1api.GetAppParams{WithSuperTasks: new(true)})
	appstest.Expect(t, res, err, http.StatusOK)
	if res.JSON200.SuperTasks == nil || len(*res.JSON200.SuperTasks) != 0 || res.JSON200.JobStats.Total != 0 || res.JSON200.ApiName != nil {
		t.Errorf("app without a flow: %+v", res.JSON200)
	}
}

func TestScoreActivityAndFeedbackStats(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	a := create(t, admin, nil, v1api.AppInput{Name: new("stats")})
	ctx := context.Background()

	score := func() bool {
		res, err := admin.V1.CheckJobScoreExistsWithResponse(ctx, a.Id, nil)
		appstest.Expect(t, res, err, http.StatusOK)
		return res.JSON200.Exists
	}
	appstest.Job(t, env.DB, org, a.Id, appstest.JobSpec{})
	if score() {
		t.Error("a score exists before any job has one")
	}
	appstest.Job(t, env.DB, org, a.Id, appstest.JobSpec{Score: new(0.4), Feedback: 2, FeedbackTags: []string{"wrong", "late"}})
	appstest.Job(t, env.DB, org, a.Id, appstest.JobSpec{Feedback: 1, FeedbackTags: []string{"wrong"}})
	appstest.Job(t, env.DB, org, a.Id, appstest.JobSpec{Feedback: 1})
	if !score() {
		t.Error("no score found")
	}

	fs, err := admin.V1.GetJobFeedbackStatsWithResponse(ctx, a.Id, nil)
	appstest.Expect(t, fs, err, http.StatusOK)
	st := fs.JSON200
	if st.JobsWithFeedback != 3 || len(st.Tags) != 2 || st.Tags[0].Tag != "wrong" || st.Tags[0].JobCount != 2 ||
		st.Tags[1].Tag != "late" || st.Tags[1].JobCount != 1 || st.Tags[1].Share < 0.33 || st.Tags[1].Share > 0.34 {
		t.Errorf("feedback stats %+v", st)
	}

	first, err := admin.V1.UpdateOwnerActivityWithResponse(ctx, a.Id, nil)
	appstest.Expect(t, first, err, http.StatusOK)
	second, err := admin.V1.UpdateOwnerActivityWithResponse(ctx, a.Id, nil)
	appstest.Expect(t, second, err, http.StatusOK)
	if first.JSON200.UserId != admin.UserID || second.JSON200.PreviousActivityAt == nil ||
		!second.JSON200.PreviousActivityAt.Equal(first.JSON200.LastActivityAt) || second.JSON200.LastActivityAt.Before(first.JSON200.LastActivityAt) {
		t.Errorf("activity %+v then %+v", first.JSON200, second.JSON200)
	}
	var updated bool
	_ = env.DB.Get(&updated, `SELECT updated_at <> created_at FROM apps WHERE id = $1`, a.Id)
	if updated {
		t.Error("recording activity changed updated_at")
	}
}

// TestAccess checks every app route against the roles: another organization's app and an app the
// caller cannot see answer exactly the 404 of a random id, and a LABELER member gets 403 on what
// needs MANAGER.
func TestAccess(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	labeler := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, org, auth.RoleAppUser)
	grouped := env.User(t, org, auth.RoleAppUser)
	a := create(t, admin, nil, v1api.AppInput{Name: new("guarded")})
	foreign := appstest.App(t, env.DB, other, "foreign", nil)
	appstest.Member(t, env.DB, a.Id, labeler.UserID, "LABELER")
	appstest.GroupOnApp(t, env.DB, a.Id, appstest.Group(t, env.DB, org, "managers", grouped.UserID), "MANAGER")
	ctx := context.Background()

	routes := map[string]func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error){
		"get": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.GetAppWithResponse(ctx, id, nil)
		},
		"score": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.CheckJobScoreExistsWithResponse(ctx, id, nil)
		},
		"feedback stats": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.GetJobFeedbackStatsWithResponse(ctx, id, nil)
		},
		"update": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.UpdateAppWithResponse(ctx, id, nil, v1api.AppInput{})
		},
		"clone": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.CloneAppWithResponse(ctx, id, nil, v1api.AppClone{Name: new(uuid.NewString())})
		},
		"owner activity": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.UpdateOwnerActivityWithResponse(ctx, id, nil)
		},
	}
	manager := map[string]bool{"update": true, "clone": true, "owner activity": true}
	for name, call := range routes {
		missing, err := call(admin, uuid.New())
		appstest.Expect(t, missing, err, http.StatusNotFound)
		got, err := call(admin, foreign)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		got, err = call(stranger, a.Id)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)

		want := http.StatusOK
		if manager[name] {
			want = http.StatusForbidden
		}
		got, err = call(labeler, a.Id)
		appstest.Expect(t, got, err, want)
		got, err = call(grouped, a.Id)
		appstest.Expect(t, got, err, http.StatusOK)
		got, err = call(admin, a.Id)
		appstest.Expect(t, got, err, http.StatusOK)
	}
}
