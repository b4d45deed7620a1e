package bulk_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loopwork/loopwork/internal/v1/bulk"
)

// operationRow inserts an operation without queuing it, so only the test's own worker runs it.
func (f *fixture) operationRow(t *testing.T, typ, status, filter string, processed, lastID int64, batchID *string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := f.env.DB.Get(&id, `INSERT INTO bulk_operations (organization_id, app_id, type, status, filter, batch_id, processed, last_id, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $4 = 'RUNNING' THEN now() END) RETURNING id`,
		f.org, f.app, typ, status, filter, batchID, processed, lastID); err != nil {
		t.Fatal(err)
	}
	return id
}

type opState struct {
	Status    string  `db:"status"`
	Processed int64   `db:"processed"`
	LastID    int64   `db:"last_id"`
	Total     *int64  `db:"total"`
	Error     *string `db:"error"`
	Finished  bool    `db:"finished"`
}

func (f *fixture) opState(t *testing.T, id uuid.UUID) opState {
	t.Helper()
	var s opState
	if err := f.env.DB.Get(&s, `SELECT status, processed, last_id, total, error, finished_at IS NOT NULL AS finished
		FROM bulk_operations WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return s
}

func work(w *bulk.Worker, id uuid.UUID) error {
	return w.Work(context.Background(), &river.Job[bulk.OperationArgs]{
		JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 10}, Args: bulk.OperationArgs{ID: id}})
}

func newWorker(f *fixture, batch int, budget time.Duration) *bulk.Worker {
	w := bulk.NewWorker(f.env.DB, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.BatchSize, w.Budget = batch, budget
	return w
}

// TestResume: an operation that stopped mid-way resumes after its last committed batch and never
// redoes one: jobs before last_id are left as they are, processed counts on from where it stood, a
// run cut short by its budget leaves exactly whole batches behind, and a finished operation is not
// run again.
func TestResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seed(t, f.app, 1000, "SCHEDULED")
	// As if a crash came after three committed batches of 100: the jobs before last_id are still
	// SCHEDULED here, so a redo would show.
	op := f.operationRow(t, bulk.TypeCancel, "RUNNING", "{}", 300, ids[299], nil)

	// A run whose budget is spent after one batch hands over (snooze) with one more batch done.
	var snooze *river.JobSnoozeError
	if err := work(newWorker(f, 100, time.Nanosecond), op); !errors.As(err, &snooze) {
		t.Fatalf("a run out of budget: %v, want a snooze", err)
	}
	if s := f.opState(t, op); s.Status != "RUNNING" || s.Processed != 400 || s.LastID != ids[399] {
		t.Fatalf("after one batch: %+v", s)
	}
	f.wantStatus(t, ids[300:400], "CANCELED")
	f.wantStatus(t, ids[400:], "SCHEDULED")

	// A fresh worker (the restart) finishes the rest.
	if err := work(newWorker(f, 100, time.Minute), op); err != nil {
		t.Fatal(err)
	}
	s := f.opState(t, op)
	if s.Status != "SUCCEEDED" || s.Processed != 1000 || s.LastID != ids[999] || s.Total == nil || *s.Total != 1000 || !s.Finished {
		t.Fatalf("after the restart: %+v", s)
	}
	f.wantStatus(t, ids[:300], "SCHEDULED")
	f.wantStatus(t, ids[300:], "CANCELED")
	var hist int
	if err := f.env.DB.Get(&hist, `SELECT count(*) FROM job_history WHERE details->>'operation_id' = $1`, op.String()); err != nil || hist != 700 {
		t.Fatalf("history rows: %d (%v), want 700", hist, err)
	}

	// Delivered again (River delivers at least once): nothing happens.
	if err := work(newWorker(f, 100, time.Minute), op); err != nil {
		t.Fatal(err)
	}
	if again := f.opState(t, op); again.Processed != 1000 {
		t.Fatalf("a second delivery changed the operation: %+v", again)
	}
	f.wantStatus(t, ids[:300], "SCHEDULED")
	f.checkCounters(t, f.app)
}

// TestWorkerFailure: an operation whose stored selection cannot be read fails for good, with a
// message, instead of being retried forever.
func TestWorkerFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seed(t, f.app, 5, "SCHEDULED")
	op := f.operationRow(t, bulk.TypeCancel, "QUEUED", `{"StatusIn": 5}`, 0, 0, nil)
	var cancel *river.JobCancelError
	if err := work(newWorker(f, 100, time.Minute), op); !errors.As(err, &cancel) {
		t.Fatalf("work on a broken operation: %v, want it canceled", err)
	}
	if s := f.opState(t, op); s.Status != "FAILED" || s.Error == nil || !s.Finished {
		t.Fatalf("broken operation: %+v", s)
	}
	f.wantStatus(t, ids, "SCHEDULED")
}

// TestRerun: a RERUN_JOBS operation (started by the app update route) resubmits the app's PENDING,
// SCHEDULED and SUSPENDED jobs under its batch id, detaching their executions; running and finished
// jobs are left alone.
func TestRerun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	suspended := f.seed(t, f.app, 30, "SUSPENDED")
	scheduled := f.seed(t, f.app, 20, "SCHEDULED")
	pending := f.seed(t, f.app, 10, "PENDING")
	running := f.seed(t, f.app, 5, "IN_PROGRESS")
	done := f.seed(t, f.app, 5, "COMPLETED")
	batch := "rerun-1"
	op := f.operationRow(t, bulk.TypeRerun, "QUEUED", "{}", 0, 0, &batch)
	if err := work(newWorker(f, 7, time.Minute), op); err != nil {
		t.Fatal(err)
	}
	if s := f.opState(t, op); s.Status != "SUCCEEDED" || s.Processed != 60 {
		t.Fatalf("rerun operation: %+v", s)
	}
	f.wantStatus(t, suspended, "SCHEDULED")
	f.wantStatus(t, scheduled, "SCHEDULED")
	f.wantStatus(t, pending, "PENDING")
	f.wantStatus(t, running, "IN_PROGRESS")
	f.wantStatus(t, done, "COMPLETED")
	var rows []struct {
		Batch *string `db:"batch_id"`
		State string  `db:"processing_state"`
		N     int     `db:"n"`
	}
	if err := f.env.DB.Select(&rows, `SELECT batch_id, processing_state, count(*) AS n FROM jobs WHERE app_id = $1
		GROUP BY 1, 2 ORDER BY 3`, f.app); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"<nil>/PROCESSING": 5, "<nil>/DONE": 5, "rerun-1/QUEUED": 10, "rerun-1/AWAITING_HUMAN": 50}
	for _, r := range rows {
		key := "<nil>/" + r.State
		if r.Batch != nil {
			key = *r.Batch + "/" + r.State
		}
		if want[key] != r.N {
			t.Fatalf("jobs by batch and processing state: %+v, want %v", rows, want)
		}
	}
	var changed int
	if err := f.env.DB.Get(&changed, `SELECT count(*) FROM job_history WHERE details->>'operation_id' = $1`, op.String()); err != nil || changed != 30 {
		t.Fatalf("status changes recorded: %d (%v), want 30 (the suspended jobs)", changed, err)
	}
	f.checkCounters(t, f.app)
}
