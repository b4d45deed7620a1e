package bulk

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// OperationArgs is the River job that runs one bulk operation.
type OperationArgs struct {
	ID uuid.UUID `json:"id"`
}

// Kind names the job in River's table.
func (OperationArgs) Kind() string { return "bulk_operation" }

// InsertOpts allows a few retries: each batch commits with the operation's progress, so a retry
// resumes where the last commit left off.
func (OperationArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 10} }

// Defaults of the worker.
const (
	DefaultBatchSize = 10000
	// DefaultBudget is how long one run goes on before it hands the rest to a new run, well below
	// River's job timeout and its rescue of jobs it believes stuck.
	DefaultBudget = 2 * time.Minute
)

// Worker runs bulk operations batch by batch, in id order. Each batch is one transaction that also
// advances the operation's processed and last_id, so after a crash or a restart the operation resumes
// after the last committed batch and never does a batch twice; the operation row is locked for the
// batch, so two deliveries of one job never interleave.
type Worker struct {
	river.WorkerDefaults[OperationArgs]
	db     *sqlx.DB
	logger *slog.Logger
	// BatchSize is the number of jobs handled per transaction.
	BatchSize int
	// Budget is how long one run goes on before it snoozes to let a fresh run continue.
	Budget time.Duration
}

// NewWorker returns the worker with the default batch size and budget.
func NewWorker(db *sqlx.DB, logger *slog.Logger) *Worker {
	return &Worker{db: db, logger: logger, BatchSize: DefaultBatchSize, Budget: DefaultBudget}
}

// errPermanent marks a failure no retry can fix.
var errPermanent = errors.New("permanent")

func errUnknownType(typ string) error {
	return fmt.Errorf("%w: unknown operation type %q", errPermanent, typ)
}

// failedMessage is what the operation shows when it stops; the cause goes to the log.
const failedMessage = "the operation failed and was stopped; jobs it already handled stay so"

// Work runs batches until the operation is done or the run's budget is spent.
func (w *Worker) Work(ctx context.Context, job *river.Job[OperationArgs]) error {
	budget := w.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	deadline := time.Now().Add(budget)
	for {
		more, err := w.step(ctx, job.Args.ID)
		switch {
		case err == nil && !more:
			return nil
		case err == nil && time.Now().After(deadline):
			return river.JobSnooze(0)
		case err == nil:
			continue
		case errors.Is(ctx.Err(), context.Canceled):
			// Shutting down: hand over at once to the next run instead of spending an attempt.
			return river.JobSnooze(0)
		}
		var public *httpx.Error
		permanent := errors.Is(err, errPermanent) || errors.As(err, &public)
		w.logger.ErrorContext(ctx, "bulk operation batch failed", "operation_id", job.Args.ID,
			"attempt", job.Attempt, "permanent", permanent, "error", err.Error())
		if permanent || job.Attempt >= job.MaxAttempts {
			if ferr := w.fail(context.WithoutCancel(ctx), job.Args.ID); ferr != nil {
				return errors.Join(err, ferr)
			}
			return river.JobCancel(err)
		}
		return err
	}
}

// step runs the next batch of the operation and reports whether more may follow.
func (w *Worker) step(ctx context.Context, id uuid.UUID) (more bool, err error) {
	err = dbx.WithTx(ctx, w.db, func(tx *sqlx.Tx) error {
		var o operation
		err := tx.GetContext(ctx, &o, `SELECT `+operationColumns+` FROM bulk_operations WHERE id = $1 FOR UPDATE`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // its app was deleted, and the operation with it
		}
		if err != nil || o.Status == "SUCCEEDED" || o.Status == "FAILED" {
			return err
		}
		t, win, err := w.plan(o)
		if err != nil {
			return err
		}
		r, err := apply(ctx, tx, o.Type, t, win, actor{Username: o.CreatedBy, ModifiedBy: "system"}, o.BatchID, operationDetails(o.ID))
		if err != nil {
			return err
		}
		more = r.more(win)
		_, err = tx.ExecContext(ctx, `UPDATE bulk_operations SET
			status = CASE WHEN $2 THEN 'RUNNING' ELSE 'SUCCEEDED' END,
			started_at = coalesce(started_at, now()),
			finished_at = CASE WHEN $2 THEN NULL ELSE now() END,
			total = CASE WHEN $2 THEN total ELSE processed + $3 END,
			processed = processed + $3, last_id = $4, beat_at = now()
			WHERE id = $1`, o.ID, more, r.Done, r.Last)
		return err
	})
	return more, err
}

// plan reads the operation's selection and its next window.
func (w *Worker) plan(o operation) (target, window, error) {
	var set filter.Set
	if err := json.Unmarshal(o.Filter, &set); err != nil {
		return target{}, window{}, fmt.Errorf("%w: stored filter: %v", errPermanent, err)
	}
	var pr params
	if len(o.Params) > 0 {
		if err := json.Unmarshal(o.Params, &pr); err != nil {
			return target{}, window{}, fmt.Errorf("%w: stored params: %v", errPermanent, err)
		}
	}
	upTo := pr.UpTo
	if upTo <= 0 {
		upTo = math.MaxInt64
	}
	size := w.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	return target{App: o.AppID, Org: o.OrgID, Filter: set}, window{After: o.LastID, UpTo: upTo, Limit: size}, nil
}

// fail marks the operation FAILED; the batches already committed stay done.
func (w *Worker) fail(ctx context.Context, id uuid.UUID) error {
	_, err := w.db.ExecContext(ctx, `UPDATE bulk_operations SET status = 'FAILED', error = $2,
		started_at = coalesce(started_at, now()), finished_at = now()
		WHERE id = $1 AND status IN ('QUEUED', 'RUNNING')`, id, failedMessage)
	return err
}
