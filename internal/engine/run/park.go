package run

import (
	"context"

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
