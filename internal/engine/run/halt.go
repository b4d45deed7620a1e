package run

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// Halt names executions to end and how: To is state.ExecFailed (a stop, with Why as the error) or
// state.ExecDeleted.
// Detach unlinks them from their /v1 jobs first, so that a job a rerun gives a new execution, or one
// being deleted, does not follow the old one. Actor is the modified_by recorded.
type Halt struct {
	IDs    []uuid.UUID
	To     state.Exec
	Why    json.RawMessage
	Actor  string
	Detach bool
	// Quiet keeps the jobs of the executions where they are: the caller (a /v1 bulk operation, the
	// expiry sweep) moves them itself, in the same transaction.
	Quiet bool
}

// HaltMany ends executions in tx, taking locks in the engine's order (see package state), so that it
// never deadlocks with the engine
// recording an outcome of the same execution: their queued and running attempts and their waiting
// tasks are cancelled and each becomes To. A stop ends only executions still running; a delete any
// not deleted yet. It returns how many executions it ended.
func HaltMany(ctx context.Context, tx *sqlx.Tx, h Halt) (int64, error) {
	if len(h.IDs) == 0 {
		return 0, nil
	}
	ids := pq.Array(h.IDs)
	if _, err := tx.ExecContext(ctx, `UPDATE task_executions SET status = 'cancelled', completed_at = now(), updated_at = now(),
		modified_by = $2 WHERE flow_execution_id = ANY($1) AND status IN ('queued', 'running')`, ids, h.Actor); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE execution_tasks SET state = 'cancelled', updated_at = now()
		WHERE flow_execution_id = ANY($1) AND state IN ('waiting', 'ready')`, ids); err != nil {
		return 0, err
	}
	if h.Quiet {
		if _, err := tx.ExecContext(ctx, `SELECT set_config('loopwork.jobs_follow', 'off', true)`); err != nil {
			return 0, err
		}
		defer func() { _, _ = tx.ExecContext(ctx, `SELECT set_config('loopwork.jobs_follow', '', true)`) }()
	}
	var why *string
	if h.Why != nil {
		s := string(h.Why)
		why = &s
	}
	res, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = $2, updated_at = now(), modified_by = $3,
		error = CASE WHEN $2 = 'failed' THEN $4::jsonb ELSE error END,
		finished_at = CASE WHEN $2 = 'failed' THEN now() ELSE finished_at END,
		deleted_at = CASE WHEN $2 = 'deleted' THEN now() END,
		job_app_id = CASE WHEN $5 THEN NULL ELSE job_app_id END, job_id = CASE WHEN $5 THEN NULL ELSE job_id END
		WHERE id = ANY($1) AND CASE WHEN $2 = 'deleted' THEN status <> 'deleted'
			ELSE status IN `+state.List(state.ExecActive)+` END`,
		ids, string(h.To), h.Actor, why, h.Detach)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Stopped is the error of an execution stopped by actor, with a message.
func Stopped(message string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "stopped", "message": message})
	return b
}
