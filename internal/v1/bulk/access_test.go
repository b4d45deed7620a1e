package bulk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// calls makes every bulk route on an app and answers their status codes.
func calls(t *testing.T, c *v1api.ClientWithResponses, app uuid.UUID) map[string]int {
	t.Helper()
	ctx := context.Background()
	out := map[string]int{}
	add, err := c.AddJobTagsWithResponse(ctx, app, &v1api.AddJobTagsParams{}, v1api.JobTags{Tags: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	out["addJobTags"] = add.StatusCode()
	rm, err := c.RemoveJobTagsWithResponse(ctx, app, &v1api.RemoveJobTagsParams{}, v1api.JobTags{Tags: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	out["removeJobTags"] = rm.StatusCode()
	cancel, err := c.CancelJobsWithResponse(ctx, app, &v1api.CancelJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	out["cancelJobs"] = cancel.StatusCode()
	del, err := c.DeleteJobsWithResponse(ctx, app, &v1api.DeleteJobsParams{IdLessThan: new(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	out["deleteJobs"] = del.StatusCode()
	return out
}

// TestAccess: every bulk route needs credentials and the MANAGER role on the app; an app of another
// organization, or a random id, is 404; the app owner and MANAGER members may run them.
func TestAccess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seed(t, f.app, 3, "SCHEDULED")
	otherOrg := f.env.Org(t)
	stranger := f.env.User(t, otherOrg, auth.RoleOrgAdmin)
	labeler := f.member(t, "LABELER")
	reviewer := f.member(t, "REVIEWER")
	manager := f.member(t, "MANAGER")
	outsider := f.env.User(t, f.org, auth.RoleAppUser)
	_, anon := f.env.Clients(t, "")
	key := f.env.KeyCaller(t, f.org, auth.RoleIntegration)

	expect := func(who string, c *v1api.ClientWithResponses, app uuid.UUID, want int) {
		t.Helper()
		for route, got := range calls(t, c, app) {
			if got != want {
				t.Fatalf("%s on %s: %d, want %d", who, route, got, want)
			}
		}
	}
	expect("anonymous", anon, f.app, http.StatusUnauthorized)
	expect("a LABELER member", labeler.V1, f.app, http.StatusForbidden)
	expect("a REVIEWER member", reviewer.V1, f.app, http.StatusForbidden)
	expect("an app_user who is not a member", outsider.V1, f.app, http.StatusNotFound)
	expect("another organization's admin", stranger.V1, f.app, http.StatusNotFound)
	expect("the admin on a random app", f.admin.V1, uuid.New(), http.StatusNotFound)
	f.wantStatus(t, ids, "SCHEDULED")
	f.wantTags(t, ids)

	for who, c := range map[string]*testkit.Caller{"a MANAGER member": manager, "an integration key": key} {
		got := calls(t, c.V1, f.app)
		if got["addJobTags"] != http.StatusNoContent || got["removeJobTags"] != http.StatusNoContent ||
			got["cancelJobs"] != http.StatusOK || got["deleteJobs"] != http.StatusOK {
			t.Fatalf("%s: %v", who, got)
		}
	}
	f.wantStatus(t, ids, "CANCELED")
}

// TestOwnerAndActor: the app_user who created an app is its MANAGER; a change made with an API key
// records no actor in the job history, as the contract says.
func TestOwnerAndActor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := f.env.KeyCaller(t, f.org, auth.RoleAppUser)
	f.env.ChangeAccess(t, `UPDATE apps SET owner_id = $2 WHERE id = $1`, f.app, key.UserID)
	ids := f.seed(t, f.app, 2, "SCHEDULED")
	res, err := key.V1.CancelJobsWithResponse(context.Background(), f.app, &v1api.CancelJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Canceled != 2 {
		t.Fatalf("the owner cancels: %d %s", res.StatusCode(), res.Body)
	}
	var actors int
	if err := f.env.DB.Get(&actors, `SELECT count(actor) FROM job_history WHERE job_id = $1 OR job_id = $2`, ids[0], ids[1]); err != nil || actors != 0 {
		t.Fatalf("history rows naming an actor for an API key change: %d (%v)", actors, err)
	}
}

// TestGetBulkOperation: any member follows the app's operations; an operation is 404 through another
// app, another organization or as a random id.
func TestGetBulkOperation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.seed(t, f.app, 1001, "SCHEDULED")
	res, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusAccepted {
		t.Fatalf("cancel 1001 jobs: %d %s, want 202", res.StatusCode(), res.Body)
	}
	op := *res.JSON202.OperationId
	labeler := f.member(t, "LABELER")
	if got := f.wait(t, labeler, f.app, op); got.Processed != 1001 || got.Status != "SUCCEEDED" {
		t.Fatalf("operation read by a LABELER: %+v", got)
	}
	otherApp := f.newApp(t, f.org)
	stranger := f.env.User(t, f.env.Org(t), auth.RoleOrgAdmin)
	_, anon := f.env.Clients(t, "")
	for name, probe := range map[string]struct {
		c       *v1api.ClientWithResponses
		app, op uuid.UUID
		want    int
	}{
		"another app":                 {f.admin.V1, otherApp, op, http.StatusNotFound},
		"another organization":        {stranger.V1, f.app, op, http.StatusNotFound},
		"a random operation":          {f.admin.V1, f.app, uuid.New(), http.StatusNotFound},
		"a random app":                {f.admin.V1, uuid.New(), op, http.StatusNotFound},
		"anonymous":                   {anon, f.app, op, http.StatusUnauthorized},
		"a member of another app":     {labeler.V1, otherApp, op, http.StatusNotFound},
		"the admin through its app":   {f.admin.V1, f.app, op, http.StatusOK},
		"a LABELER through their app": {labeler.V1, f.app, op, http.StatusOK},
	} {
		r, err := probe.c.GetBulkOperationWithResponse(ctx, probe.app, probe.op, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode() != probe.want {
			t.Fatalf("%s: %d, want %d: %s", name, r.StatusCode(), probe.want, r.Body)
		}
	}
	// A 202 at exactly 1001 and a 200 at exactly 1000.
	f.seed(t, f.app, 1000, "PENDING")
	r2, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if r2.StatusCode() != http.StatusOK || r2.JSON200.Canceled != 1000 {
		t.Fatalf("cancel 1000 jobs: %d %s, want 200", r2.StatusCode(), r2.Body)
	}
	f.checkCounters(t, f.app)
}
