package jobs_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
)

// TestJobTenancy: a job is reached only through its own app of the caller's organization; every other
// way answers the same 404 as an id that does not exist.
func TestJobTenancy(t *testing.T) {
	t.Parallel()
	f := setup(t)
	mine := f.submit(t, f.app, v1api.JobInput{Input: doc(map[string]any{})})
	sibling := f.newApp(t, appOpts{})
	siblingJob := f.submit(t, sibling, v1api.JobInput{Input: doc(map[string]any{})})
	otherOrg := f.env.Org(t)
	otherApp := f.newApp(t, appOpts{org: otherOrg})
	otherJob := f.seed(t, otherApp, row{status: "SCHEDULED"})[0]

	res, _ := f.admin.V1.GetJobWithResponse(ctx, f.app, mine, nil)
	wantStatus(t, "own job", res.StatusCode(), res.Body, 200)
	random, _ := f.admin.V1.GetJobWithResponse(ctx, f.app, 1<<40, nil)
	wantStatus(t, "random id", random.StatusCode(), random.Body, 404)
	for name, c := range map[string]struct {
		app uuid.UUID
		job int64
	}{
		"job of a sibling app":                   {f.app, siblingJob},
		"job of another organization":            {f.app, otherJob},
		"another organization's app":             {otherApp, otherJob},
		"another organization's app, own job id": {otherApp, mine},
	} {
		app := c.app
		got, _ := f.admin.V1.GetJobWithResponse(ctx, app, c.job, nil)
		if got.StatusCode() != 404 || errorCode(t, got.Body) != "not_found" {
			t.Errorf("%s: %d %s", name, got.StatusCode(), got.Body)
		}
		h, _ := f.admin.V1.GetJobHistoryWithResponse(ctx, app, c.job, nil)
		fb, _ := f.admin.V1.SubmitJobFeedbackWithResponse(ctx, app, c.job, nil, v1api.JobFeedbackInput{Message: new("x")})
		del, _ := f.admin.V1.DeleteJobWithResponse(ctx, app, c.job)
		resp, _ := f.admin.V1.SubmitJobResponseWithResponse(ctx, app, c.job, nil, v1api.JobResponseInput{Response: doc(map[string]any{})})
		if h.StatusCode() != 404 || fb.StatusCode() != 404 || del.StatusCode() != 404 || resp.StatusCode() != 404 {
			t.Errorf("%s: history %d, feedback %d, delete %d, response %d", name, h.StatusCode(), fb.StatusCode(), del.StatusCode(), resp.StatusCode())
		}
	}
	// The answers for a job of the sibling app and for a random id are the same message.
	sib, _ := f.admin.V1.GetJobWithResponse(ctx, f.app, siblingJob, nil)
	if sib.JSON404.Error.Message != random.JSON404.Error.Message {
		t.Errorf("messages differ: %q, %q", sib.JSON404.Error.Message, random.JSON404.Error.Message)
	}
	var n int
	_ = f.env.DB.Get(&n, `SELECT count(*) FROM jobs WHERE id = ANY($1)`, pqInts(siblingJob, otherJob))
	if n != 2 {
		t.Fatalf("a job of another app was touched: %d left", n)
	}
}

func TestDeleteJob(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.submit(t, f.app, v1api.JobInput{Input: doc(map[string]any{})})
	if _, err := f.admin.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Message: new("m")}); err != nil {
		t.Fatal(err)
	}
	labeler := f.member(t, f.app, "LABELER")
	res, _ := labeler.V1.DeleteJobWithResponse(ctx, f.app, id)
	wantStatus(t, "labeler", res.StatusCode(), res.Body, http.StatusForbidden)
	res, _ = f.env.V1.DeleteJobWithResponse(ctx, f.app, id)
	wantStatus(t, "anonymous", res.StatusCode(), res.Body, http.StatusUnauthorized)

	manager := f.member(t, f.app, "MANAGER")
	res, _ = manager.V1.DeleteJobWithResponse(ctx, f.app, id)
	wantStatus(t, "manager", res.StatusCode(), res.Body, http.StatusNoContent)
	got, _ := f.admin.V1.GetJobWithResponse(ctx, f.app, id, nil)
	wantStatus(t, "get deleted", got.StatusCode(), got.Body, 404)
	res, _ = manager.V1.DeleteJobWithResponse(ctx, f.app, id)
	wantStatus(t, "delete again", res.StatusCode(), res.Body, 404)
	var left int
	_ = f.env.DB.Get(&left, `SELECT (SELECT count(*) FROM job_feedback WHERE job_id = $1) + (SELECT count(*) FROM job_history WHERE job_id = $1)`, id)
	if left != 0 {
		t.Fatalf("%d feedback and history rows left", left)
	}
	cnt, _ := f.admin.V1.CountJobsWithResponse(ctx, f.app, nil)
	if cnt.JSON200.Total != 0 {
		t.Fatalf("counters after delete: %+v", cnt.JSON200)
	}
}

// TestGetJobRoles: every member reads jobs; an app_user without membership does not see the app.
func TestGetJobRoles(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.submit(t, f.app, v1api.JobInput{Input: doc(map[string]any{"k": "v"})})
	for _, c := range []*struct {
		name string
		want int
		v1   *v1api.ClientWithResponses
	}{
		{"labeler", 200, f.member(t, f.app, "LABELER").V1},
		{"integration key", 200, f.env.KeyCaller(t, f.org, auth.RoleIntegration).V1},
		{"no member", 404, f.env.User(t, f.org, auth.RoleAppUser).V1},
		{"anonymous", 401, f.env.V1},
	} {
		res, err := c.v1.GetJobWithResponse(ctx, f.app, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, c.name, res.StatusCode(), res.Body, c.want)
	}
}
