package run

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// ParkForReview makes a running attempt wait for people instead of its deadline, and its execution wait
// for input, in tx: a review was opened on the attempt through the API (a human_review task parks
// itself, see executors.Result.Park). Report finishes the attempt when the review is decided. The
// attempt's row is locked before the execution's, as everywhere in the engine.
func ParkForReview(ctx context.Context, tx *sqlx.Tx, k AttemptKey) error {
	_, err := tx.ExecContext(ctx, `
		WITH att AS (UPDATE task_executions SET timeout_at = NULL, updated_at = now()
		             WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3)
		UPDATE flow_executions SET status = 'awaiting_input', updated_at = now()
		WHERE id = $1 AND status IN `+state.List([]state.Exec{state.ExecQueued, state.ExecRunning, state.ExecInProgress}),
		k.Execution, k.Task, k.Idx)
	return err
}

// park leaves the attempt running with no deadline until Report finishes it. The execution's next move
// (to running, when it was queued, see markRunning; else to awaiting_input) goes in the attempt's
// statement; a queued one that awaits input moves twice, so that it and its job pass through running.
func (e *Engine) park(ctx context.Context, tx *sqlx.Tx, a taskArgs, status state.Exec, awaiting bool) error {
	q := `UPDATE task_executions SET timeout_at = NULL, updated_at = now()
		WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`
	switch {
	case status == state.ExecQueued:
		q = `WITH att AS (` + q + `) UPDATE flow_executions SET status = 'running', started_at = now(), updated_at = now()
			WHERE id = $1 AND status = 'queued'`
	case awaiting:
		q = `WITH att AS (` + q + `) ` + awaitInput
	}
	if _, err := tx.ExecContext(ctx, q, a.Execution, a.Task, a.Idx); err != nil || status != state.ExecQueued || !awaiting {
		return err
	}
	_, err := tx.ExecContext(ctx, awaitInput, a.Execution)
	return err
}

// awaitInput moves execution $1 to awaiting_input.
const awaitInput = `UPDATE flow_executions SET status = 'awaiting_input', updated_at = now() WHERE id = $1`

// markRunning moves an execution whose first task ran here quickly from queued to running, in the
// transaction that records that task's outcome (see beginAfter), so that it and its job pass through
// running before they wait, fail or go on. It comes last in the transaction's locks, as the execution's
// row always does.
func (e *Engine) markRunning(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, status state.Exec) error {
	if status != state.ExecQueued {
		return nil // as record read it: an execution that left queued never returns to it
	}
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'running', started_at = now(), updated_at = now()
		WHERE id = $1 AND status = 'queued'`, exec)
	return err
}
