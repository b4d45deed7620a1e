package bulk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
)

// TestCancelSmall: up to 1000 matching jobs are canceled before a 200 that counts them; finished jobs,
// jobs outside the filters and jobs of other apps are never touched; locks are released, executions
// stopped, history written, counters exact.
func TestCancelSmall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.newApp(t, f.org)
	scheduled := f.seed(t, f.app, 10, "SCHEDULED", "a")
	suspended := f.seed(t, f.app, 5, "SUSPENDED", "a", "b")
	pending := f.seed(t, f.app, 3, "PENDING")
	completed := f.seed(t, f.app, 4, "COMPLETED", "a")
	otherApp := f.seed(t, other, 6, "SCHEDULED", "a")

	// A suspended job held by a worker, with a running flow execution.
	exec := f.execution(t, suspended[0], "awaiting_input")
	if _, err := f.env.DB.Exec(`UPDATE jobs SET assigned_to = $2, lock_expires_at = now() + interval '1 hour' WHERE id = $1`,
		suspended[0], f.admin.UserID); err != nil {
		t.Fatal(err)
	}

	// Tags and an id range narrow the selection: tag b selects the suspended jobs, minus the last one.
	res, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{
		Tags: &[]string{"b"}, IdLessThan: new(suspended[4])})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Matched != 4 || res.JSON200.Canceled != 4 || res.JSON200.OperationId != nil {
		t.Fatalf("cancel tag b: %d %s, want 200 matched 4 canceled 4", res.StatusCode(), res.Body)
	}
	f.wantStatus(t, suspended[:4], "CANCELED")
	f.wantStatus(t, suspended[4:], "SUSPENDED")
	f.wantStatus(t, scheduled, "SCHEDULED")

	var job struct {
		State    string     `db:"processing_state"`
		Assigned *uuid.UUID `db:"assigned_to"`
		Lock     *string    `db:"lock_expires_at"`
		Done     *string    `db:"completed_at"`
	}
	if err := f.env.DB.Get(&job, `SELECT processing_state, assigned_to, lock_expires_at::text, completed_at::text FROM jobs WHERE id = $1`, suspended[0]); err != nil {
		t.Fatal(err)
	}
	if job.State != "ERROR" || job.Assigned != nil || job.Lock != nil || job.Done != nil {
		t.Fatalf("canceled job: %+v, want ERROR, lock released, no completed_at", job)
	}
	var execStatus, why string
	if err := f.env.DB.QueryRow(`SELECT status, error->>'type' FROM flow_executions WHERE id = $1`, exec).Scan(&execStatus, &why); err != nil ||
		execStatus != "failed" || why != "stopped" {
		t.Fatalf("the canceled job's execution is %q (%s, %v), want stopped (failed, stopped)", execStatus, why, err)
	}
	var hist []struct {
		From  string  `db:"from_status"`
		To    string  `db:"to_status"`
		Actor *string `db:"actor"`
	}
	if err := f.env.DB.Select(&hist, `SELECT from_status, to_status, actor FROM job_history WHERE job_id = $1 AND event = 'STATUS_CHANGED'`, suspended[0]); err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].From != "SUSPENDED" || hist[0].To != "CANCELED" || hist[0].Actor == nil || *hist[0].Actor != f.admin.Email {
		t.Fatalf("history of the canceled job: %+v", hist)
	}

	// statusIn restricts to the listed unfinished statuses.
	res, err = f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{StatusIn: &[]string{"PENDING"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Matched != 3 {
		t.Fatalf("cancel PENDING: %d %s", res.StatusCode(), res.Body)
	}
	f.wantStatus(t, pending, "CANCELED")
	f.wantStatus(t, scheduled, "SCHEDULED")

	// Without statusIn every unfinished job matching the rest is canceled, finished ones never.
	res, err = f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{Tags: &[]string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Matched != 11 || res.JSON200.Canceled != 11 {
		t.Fatalf("cancel tag a: %d %s, want 11 (10 scheduled + 1 suspended)", res.StatusCode(), res.Body)
	}
	f.wantStatus(t, scheduled, "CANCELED")
	f.wantStatus(t, completed, "COMPLETED")
	f.wantStatus(t, otherApp, "SCHEDULED")

	// Nothing left: 200 with zeros, and history is not written twice.
	res, err = f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusOK || res.JSON200.Matched != 0 || res.JSON200.Canceled != 0 {
		t.Fatalf("cancel again: %d %s", res.StatusCode(), res.Body)
	}
	var n int
	if err := f.env.DB.Get(&n, `SELECT count(*) FROM job_history h JOIN jobs j ON j.id = h.job_id WHERE j.app_id = $1`, f.app); err != nil || n != 18 {
		t.Fatalf("history rows: %d (%v), want 18 (one per canceled job)", n, err)
	}
	c := f.checkCounters(t, f.app)
	if c["CANCELED"] != 18 || c["COMPLETED"] != 4 {
		t.Fatalf("counters %v", c)
	}
	f.checkCounters(t, other)
}

// TestCancelLarge: more than 1000 matching jobs answer 202 with the operation; the worker cancels them
// in batches, the operation ends SUCCEEDED with every job counted, and the counters are exact.
func TestCancelLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ids := f.seed(t, f.app, 25000, "SCHEDULED")
	kept := f.seed(t, f.app, 100, "SCHEDULED", "keep")
	done := f.seed(t, f.app, 50, "COMPLETED")

	res, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{NotTags: &[]string{"keep"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusAccepted || res.JSON202.Matched != 25000 || res.JSON202.Canceled != 0 || res.JSON202.OperationId == nil {
		t.Fatalf("cancel 25000: %d %s, want 202 matched 25000 canceled 0 with an operation", res.StatusCode(), res.Body)
	}
	// Jobs submitted after the request are not swept up by the operation.
	late := f.seed(t, f.app, 10, "SCHEDULED")

	op := f.wait(t, f.admin, f.app, *res.JSON202.OperationId)
	if op.Status != "SUCCEEDED" || op.Type != "CANCEL_JOBS" || op.Processed != 25000 || op.Total == nil || *op.Total != 25000 ||
		op.StartedAt == nil || op.FinishedAt == nil || op.CreatedBy == nil || *op.CreatedBy != f.admin.Email {
		t.Fatalf("operation: %+v", op)
	}
	f.wantStatus(t, ids, "CANCELED")
	f.wantStatus(t, kept, "SCHEDULED")
	f.wantStatus(t, late, "SCHEDULED")
	f.wantStatus(t, done, "COMPLETED")
	c := f.checkCounters(t, f.app)
	if c["CANCELED"] != 25000 || c["SCHEDULED"] != 110 {
		t.Fatalf("counters %v", c)
	}
	var hist int
	if err := f.env.DB.Get(&hist, `SELECT count(*) FROM job_history WHERE event = 'STATUS_CHANGED' AND details->>'operation_id' = $1`,
		res.JSON202.OperationId.String()); err != nil || hist != 25000 {
		t.Fatalf("history rows of the operation: %d (%v)", hist, err)
	}
}

// TestCancelValidation: statusIn may name only unfinished statuses, and filters the schema accepts
// but the filter cannot use are 400 naming the parameter.
func TestCancelValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ids := f.seed(t, f.app, 3, "SCHEDULED")
	for name, p := range map[string]struct {
		params v1api.CancelJobsParams
		param  string
	}{
		"completed":    {v1api.CancelJobsParams{StatusIn: &[]string{"COMPLETED"}}, "statusIn"},
		"canceled":     {v1api.CancelJobsParams{StatusIn: &[]string{"SCHEDULED", "CANCELED"}}, "statusIn"},
		"value alone":  {v1api.CancelJobsParams{InputValue: new("x")}, "inputValue"},
		"bad path":     {v1api.CancelJobsParams{InputPath: new("{a..b}")}, "inputPath"},
		"empty groups": {v1api.CancelJobsParams{Tags: &[]string{" , "}, UseTagGroups: new(true)}, "tags"},
	} {
		res, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &p.params)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, name, res.StatusCode(), res.Body, http.StatusBadRequest, p.param)
	}
	f.wantStatus(t, ids, "SCHEDULED")
}
