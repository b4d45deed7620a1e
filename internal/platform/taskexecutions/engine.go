package taskexecutions

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/run"
)

// reportLease is the lease of an engine attempt that a worker reports running without claiming it; the
// worker keeps it with heartbeats as if it had claimed the attempt for this long.
const reportLease = "60 seconds"

// runsOnEngine is whether the attempt is the one the engine waits for: the execution runs on the engine
// (it has the task's execution_tasks row) and the attempt is the task's current one (the engine counts a
// task's attempts there, and creates attempt n-1 as it counts the n-th). Other attempts of the same task,
// recorded by workers on their own, must not finish the task: the engine's own attempt would then
// finish it a second time.
func (s *Service) runsOnEngine(ctx context.Context, tx *sqlx.Tx, cur row) (bool, error) {
	var ok bool
	err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM execution_tasks
		WHERE flow_execution_id = $1 AND task_name = $2 AND attempts = $3 + 1)`, cur.Execution, cur.Task, cur.Idx)
	return ok, err
}

// toEngine applies a move of an engine attempt. running takes the attempt under a lease, as a claim
// does. A final status goes through Engine.Report, which only finishes a running attempt, so a queued
// one is first marked running in this transaction: completed moves the execution on with the output,
// failed is retried as the task's retry allows, and cancelled fails the task without retry (a worker
// that gives up on an attempt has no result for the tasks after it, and retrying what the worker
// cancelled would undo its decision); the attempt itself then shows what the worker reported.
func (s *Service) toEngine(ctx context.Context, tx *sqlx.Tx, cur row, r report) (row, error) {
	to := string(r.Status)
	var out row
	if to == "running" {
		if err := tx.GetContext(ctx, &out, `UPDATE task_executions t SET status = 'running',
			input = CASE WHEN $2::jsonb IS NULL THEN t.input ELSE nullif($2::jsonb, 'null') END,
			started_at = coalesce(t.started_at, now()), timeout_at = now() + interval '`+reportLease+`',
			updated_at = now(), modified_by = $3
			WHERE t.id = $1 RETURNING `+columns, cur.ID, r.input, r.actor); err != nil {
			return out, err
		}
		_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'running', started_at = coalesce(started_at, now()),
			updated_at = now() WHERE id = $1 AND status = 'queued'`, cur.Execution)
		return out, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE task_executions t SET status = 'running',
		input = CASE WHEN $2::jsonb IS NULL THEN t.input ELSE nullif($2::jsonb, 'null') END,
		started_at = CASE WHEN $3 = 'cancelled' THEN t.started_at ELSE coalesce(t.started_at, now()) END,
		updated_at = now(), modified_by = $4
		WHERE t.id = $1`, cur.ID, r.input, to, r.actor); err != nil {
		return out, err
	}
	var output json.RawMessage
	var cause error
	switch to {
	case "completed":
		if r.output != nil {
			output = json.RawMessage(*r.output)
		}
	case "failed":
		msg := "the worker reported a failure without an error"
		if r.Error != nil {
			msg = r.Error.Message
		}
		cause = errors.New(msg)
	case "cancelled":
		cause = executors.Permanent(errors.New("the worker cancelled the attempt"))
	}
	key := run.AttemptKey{Execution: cur.Execution, Task: cur.Task, Idx: cur.Idx}
	if err := s.engine.Report(ctx, tx, key, output, cause); err != nil {
		return out, err
	}
	// The engine writes its own error ({message, type}); the attempt keeps what the worker sent, and a
	// cancelled attempt stays cancelled. Neither applies when the engine cancelled the attempt because
	// the execution had stopped.
	err := tx.GetContext(ctx, &out, `UPDATE task_executions t SET
		status = CASE WHEN t.status = 'failed' AND $2 = 'cancelled' THEN 'cancelled' ELSE t.status END,
		error = CASE WHEN t.status = 'failed' AND $2 = 'failed' THEN coalesce($3::jsonb, t.error)
			WHEN t.status = 'failed' THEN NULL ELSE t.error END,
		updated_at = now(), modified_by = $4
		WHERE t.id = $1 RETURNING `+columns, cur.ID, to, r.error, r.actor)
	return out, err
}
