package bulk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
)

// TestDeleteSmall: matching jobs go with their feedback and history before a 200 that counts them;
// the executions of unfinished ones are stopped; other jobs and apps stay; counters are exact.
func TestDeleteSmall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.newApp(t, f.org)
	done := f.seed(t, f.app, 6, "COMPLETED", "x")
	failed := f.seed(t, f.app, 2, "FAILED", "x")
	running := f.seed(t, f.app, 3, "IN_PROGRESS", "x")
	untagged := f.seed(t, f.app, 4, "COMPLETED")
	otherApp := f.seed(t, other, 5, "COMPLETED", "x")

	exec := f.execution(t, running[0], "running")
	if _, err := f.env.DB.Exec(`INSERT INTO job_feedback (job_id, app_id, organization_id, message) VALUES ($1, $2, $3, 'hm')`,
		done[0], f.app, f.org); err != nil {
		t.Fatal(err)
	}

	// statusIn and the tag filter: the completed and failed tagged jobs, not the running ones.
	res, err := f.admin.V1.DeleteJobsWithResponse(ctx, f.app, &v1api.DeleteJobsParams{
		Tags: &[]string{"x"}, StatusIn: &[]string{"COMPLETED", "FAILED"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Matched != 8 || res.JSON200.Deleted != 8 || res.JSON200.OperationId != nil {
		t.Fatalf("delete: %d %s, want 200 matched 8 deleted 8", res.StatusCode(), res.Body)
	}
	if left := f.statuses(t, append(append([]int64{}, done...), failed...)); len(left) != 0 {
		t.Fatalf("jobs left after delete: %v", left)
	}
	var feedback int
	if err := f.env.DB.Get(&feedback, `SELECT count(*) FROM job_feedback WHERE job_id = ANY($1)`, pq.Int64Array(done)); err != nil || feedback != 0 {
		t.Fatalf("feedback of deleted jobs: %d (%v)", feedback, err)
	}
	f.wantStatus(t, running, "IN_PROGRESS")
	f.wantStatus(t, untagged, "COMPLETED")

	// An id range: the first running job (with its execution) only.
	res, err = f.admin.V1.DeleteJobsWithResponse(ctx, f.app, &v1api.DeleteJobsParams{
		IdGreaterThan: new(running[0] - 1), IdLessThan: new(running[1])})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Deleted != 1 {
		t.Fatalf("delete by id range: %d %s", res.StatusCode(), res.Body)
	}
	var execStatus string
	if err := f.env.DB.Get(&execStatus, `SELECT status FROM flow_executions WHERE id = $1`, exec); err != nil || execStatus != "deleted" {
		t.Fatalf("the deleted unfinished job's execution is %q (%v), want stopped", execStatus, err)
	}
	f.wantStatus(t, running[1:], "IN_PROGRESS")
	f.wantStatus(t, otherApp, "COMPLETED")
	c := f.checkCounters(t, f.app)
	if c["COMPLETED"] != 4 || c["IN_PROGRESS"] != 2 || c["FAILED"] != 0 {
		t.Fatalf("counters %v", c)
	}
	f.checkCounters(t, other)
}

// TestDeleteLarge: without filters every job of the app is deleted by a background operation.
func TestDeleteLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.newApp(t, f.org)
	f.seed(t, f.app, 12000, "COMPLETED")
	f.seed(t, f.app, 500, "SCHEDULED")
	kept := f.seed(t, other, 20, "COMPLETED")

	res, err := f.admin.V1.DeleteJobsWithResponse(ctx, f.app, &v1api.DeleteJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusAccepted || res.JSON202.Matched != 12500 || res.JSON202.Deleted != 0 || res.JSON202.OperationId == nil {
		t.Fatalf("delete all: %d %s", res.StatusCode(), res.Body)
	}
	op := f.wait(t, f.admin, f.app, *res.JSON202.OperationId)
	if op.Status != "SUCCEEDED" || op.Type != "DELETE_JOBS" || op.Processed != 12500 {
		t.Fatalf("operation: %+v", op)
	}
	c := f.checkCounters(t, f.app)
	for s, n := range c {
		if n != 0 {
			t.Fatalf("%d %s jobs left", n, s)
		}
	}
	f.wantStatus(t, kept, "COMPLETED")
}
