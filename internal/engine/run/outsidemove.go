package run

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// reportLease is the lease of an engine attempt that a worker reports running without claiming it; the
// worker keeps it with heartbeats as if it had claimed the attempt for this long.
const reportLease = "60 seconds"

// toEngine applies an outside worker's move of the current attempt of an external task. running takes
// the attempt under a lease, as a claim does. A final status goes through Report, which only finishes a
// running attempt, so a queued one is first marked running in this transaction: completed moves the
// execution on with the output, failed is retried as the task's retry allows, and cancelled fails the
// task without retry (a worker that gives up on an attempt has no result for the tasks after it, and
// retrying what the worker cancelled would undo its decision); the attempt itself then shows what the
// worker reported.
func (e *Engine) toEngine(ctx context.Context, tx *sqlx.Tx, id uuid.UUID, r Outside, into Into) error {
	if r.Status == state.AttemptRunning {
		if err := tx.GetContext(ctx, into.Dest, `UPDATE task_executions t SET status = 'running',
			input = CASE WHEN $2::jsonb IS NULL THEN t.input ELSE nullif($2::jsonb, 'null') END,
			started_at = coalesce(t.started_at, now()), timeout_at = now() + interval '`+reportLease+`',
			updated_at = now(), modified_by = $3
			WHERE t.id = $1 RETURNING `+into.Columns, id, r.Input, r.Actor); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'running', started_at = coalesce(started_at, now()),
			updated_at = now() WHERE id = $1 AND status = 'queued'`, r.Key.Execution)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE task_executions t SET status = 'running',
		input = CASE WHEN $2::jsonb IS NULL THEN t.input ELSE nullif($2::jsonb, 'null') END,
		started_at = CASE WHEN $3 = 'cancelled' THEN t.started_at ELSE coalesce(t.started_at, now()) END,
		updated_at = now(), modified_by = $4
		WHERE t.id = $1`, id, r.Input, string(r.Status), r.Actor); err != nil {
		return err
	}
	var output json.RawMessage
	var cause error
	switch r.Status {
	case state.AttemptCompleted:
		if r.Output != nil {
			output = json.RawMessage(*r.Output)
		}
	case state.AttemptFailed:
		msg := r.Message
		if msg == "" {
			msg = "the worker reported a failure without an error"
		}
		cause = errors.New(msg)
	case state.AttemptCancelled:
		cause = workerCancelled{executors.Permanent(errors.New("the worker cancelled the attempt"))}
	}
	if err := e.Report(ctx, tx, r.Key, output, cause); err != nil {
		return err
	}
	// The engine writes its own error ({message, type}); the attempt keeps what the worker sent. That
	// does not apply when the engine cancelled the attempt because the execution had stopped.
	return tx.GetContext(ctx, into.Dest, `UPDATE task_executions t SET
		error = CASE WHEN t.status = 'failed' AND $2 = 'failed' THEN coalesce($3::jsonb, t.error) ELSE t.error END,
		updated_at = now(), modified_by = $4
		WHERE t.id = $1 RETURNING `+into.Columns, id, string(r.Status), r.Error, r.Actor)
}

// workerCancelled is the failure of an attempt an outside worker cancelled: the task fails without
// retry, and the attempt is recorded cancelled rather than failed (see failed).
type workerCancelled struct{ error }

func (w workerCancelled) Unwrap() error { return w.error }
