package run

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// failExecution fails the execution of an attempt that failed for good, and with it everything of the
// execution that has not finished: the other tasks are cancelled at once rather than when their
// attempts end. The statements keep the engine's lock order (attempts, tasks by name, the execution):
//
//   - the other current attempts that are queued or running are cancelled, except those whose row is
//     locked: their outcome is being recorded right now, and that transaction, having read the
//     execution active, finishes them; their successors' attempts are cancelled when claimed (see
//     claim), as is every attempt of an execution that is no longer active;
//   - the failed task becomes failed, and the tasks still waiting, and those whose attempt was just
//     cancelled, become cancelled; a task that a finished sibling made ready meanwhile keeps its state;
//   - the execution becomes failed (passing through running when its first task failed: its /v1 job
//     goes IN_PROGRESS -> FAILED as its statuses say).
func (e *Engine) failExecution(ctx context.Context, tx *sqlx.Tx, x execRow, a taskArgs, failure []byte) error {
	var cancelled []string
	if err := tx.SelectContext(ctx, &cancelled, `UPDATE task_executions SET status = 'cancelled', completed_at = now(),
		updated_at = now() WHERE id IN (SELECT t.id FROM task_executions t
			LEFT JOIN execution_tasks k ON k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name
			WHERE t.flow_execution_id = $1 AND NOT (t.task_name = $2 AND t.task_execution_idx = $3)
			  AND (t.status = 'queued' OR (t.status = 'running' AND k.attempts = t.task_execution_idx + 1))
			FOR UPDATE OF t SKIP LOCKED)
		RETURNING task_name`, a.Execution, a.Task, a.Idx); err != nil {
		return err
	}
	// The rows are locked by name, as every transaction of the engine locks tasks; a row a sibling's
	// transaction held is checked again once it is free (FOR UPDATE re-reads it), so a task it made ready
	// meanwhile is left alone.
	if _, err := tx.ExecContext(ctx, `WITH k AS (SELECT task_name FROM execution_tasks
			WHERE flow_execution_id = $1 AND (task_name = $2 OR state = 'waiting' OR (state = 'ready' AND task_name = ANY($3)))
			ORDER BY task_name FOR UPDATE)
		UPDATE execution_tasks t SET state = CASE WHEN t.task_name = $2 THEN 'failed' ELSE 'cancelled' END, updated_at = now()
		FROM k WHERE t.flow_execution_id = $1 AND t.task_name = k.task_name`,
		a.Execution, a.Task, pq.Array(cancelled)); err != nil {
		return err
	}
	if err := e.markRunning(ctx, tx, a.Execution, x.Status); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'failed', error = $2, finished_at = now(),
		updated_at = now() WHERE id = $1 AND status IN `+state.List(state.ExecActive), a.Execution, string(failure)); err != nil {
		return err
	}
	return e.ended(ctx, tx, a.Execution)
}
