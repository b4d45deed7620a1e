package run

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// Outside is a report of an outside worker on one attempt (POST /api/task-executions): its status and
// the fields sent, as JSON text (nil when not sent).
type Outside struct {
	Org                  uuid.UUID
	Key                  AttemptKey
	Status               state.Attempt
	Input, Output, Error *string
	// Message is the error's message of a failed report ("" when the worker sent none).
	Message string
	Actor   string
}

// NotOutsideError refuses a report on an attempt of a task that the engine runs, or that people
// complete: only attempts of external tasks (and attempts the engine does not know) are reported.
type NotOutsideError struct {
	Task, Type string
}

func (e NotOutsideError) Error() string {
	if e.Type == HumanReview {
		return fmt.Sprintf("task %q is a human_review task: people complete its attempts through its review, not reports", e.Task)
	}
	return fmt.Sprintf("task %q is a %s task, which the engine runs itself; only attempts of %s tasks are reported by workers",
		e.Task, e.Type, External)
}

// MoveError refuses a report that would move an attempt back, or out of a final status. Stopped is the
// status of the attempt's execution when it had stopped and the engine cancelled the attempt with it.
type MoveError struct {
	From, To state.Attempt
	Stopped  state.Exec
}

func (e MoveError) Error() string {
	why := "running never goes back to queued"
	if e.From.Final() {
		why = string(e.From) + " is final"
	}
	if e.Stopped != "" {
		why += fmt.Sprintf(" (the execution is %s, and its unfinished attempts were cancelled with it)", e.Stopped)
	}
	return fmt.Sprintf("a task execution cannot move from %s to %s: statuses only move forward, and %s", e.From, e.To, why)
}

// HumanReview is the task type people complete through reviews.
const HumanReview = "human_review"

// ReportOutside records an outside worker's report in tx, under the attempt's row lock, and scans the
// attempt after it (into.Columns of a task_executions row aliased t) into into.Dest; it reports whether
// the attempt was recorded for the first time. The caller has checked that the execution is visible and
// not deleted.
//
// A report naming a task of the execution's flow version that is not external is refused
// (NotOutsideError): the engine runs those, or people do. When the attempt is the current one of an
// external task, a move is applied through the engine (see toEngine); other attempts are the worker's
// own records and change nothing else.
func (e *Engine) ReportOutside(ctx context.Context, tx *sqlx.Tx, r Outside, into Into) (bool, error) {
	k := r.Key
	typ, err := typeOf(ctx, tx, k.Execution, k.Task)
	if err != nil {
		return false, err
	}
	if typ != "" && typ != External {
		return false, NotOutsideError{Task: k.Task, Type: typ}
	}
	var cur struct {
		ID     uuid.UUID     `db:"id"`
		Status state.Attempt `db:"status"`
		Mine   bool          `db:"mine"`
	}
	err = tx.GetContext(ctx, &cur, `SELECT t.id, t.status, EXISTS (SELECT 1 FROM execution_tasks k
			WHERE k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name
			AND k.attempts = t.task_execution_idx + 1) AS mine
		FROM task_executions t WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3
		FOR UPDATE OF t`, k.Execution, k.Task, k.Idx)
	if errors.Is(err, sql.ErrNoRows) {
		return true, tx.GetContext(ctx, into.Dest, insertOutside+into.Columns, r.Org, k.Execution, k.Task, k.Idx,
			string(r.Status), r.Input, r.Output, r.Error, r.Actor)
	}
	if err != nil {
		return false, err
	}
	if !state.OutsideMove(cur.Status, r.Status) {
		refused := MoveError{From: cur.Status, To: r.Status}
		if cur.Status == state.AttemptCancelled {
			if err := tx.GetContext(ctx, &refused.Stopped, `SELECT status FROM flow_executions WHERE id = $1`, k.Execution); err != nil {
				return false, err
			}
			if refused.Stopped.Active() {
				refused.Stopped = ""
			}
		}
		return false, refused
	}
	if cur.Status != r.Status && cur.Mine {
		return false, e.toEngine(ctx, tx, cur.ID, r, into)
	}
	return false, tx.GetContext(ctx, into.Dest, updateOutside+into.Columns, cur.ID, string(r.Status), r.Input, r.Output,
		r.Error, r.Actor)
}

// typeOf is the type of a task that the engine laid out for an execution (it has the task's
// execution_tasks row), "" for a task it does not know.
func typeOf(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, task string) (string, error) {
	var types []string
	err := tx.SelectContext(ctx, &types, `SELECT coalesce(d->>'type', '') FROM execution_tasks k
		JOIN flow_executions x ON x.id = k.flow_execution_id
		JOIN flow_versions v ON v.flow_id = x.flow_id AND v.version = x.flow_version
		CROSS JOIN LATERAL jsonb_array_elements(v.definition->'tasks') d
		WHERE k.flow_execution_id = $1 AND k.task_name = $2 AND d->>'name' = $2 LIMIT 1`, exec, task)
	if err != nil || len(types) == 0 {
		return "", err
	}
	return types[0], nil
}

// insertOutside records a first report. An attempt that is reported completed or failed first has
// started then too. Parameters: organization, execution, task, idx, status, input, output, error, actor.
const insertOutside = `INSERT INTO task_executions AS t (organization_id, flow_execution_id, task_name, task_execution_idx,
	status, input, output, error, started_at, completed_at, modified_by)
	VALUES ($1, $2, $3, $4, $5, nullif($6::jsonb, 'null'), nullif($7::jsonb, 'null'), $8::jsonb,
		CASE WHEN $5 IN ('running', 'completed', 'failed') THEN now() END,
		CASE WHEN $5 IN ('completed', 'failed', 'cancelled') THEN now() END, $9)
	RETURNING `

// updateOutside applies a later report, which OutsideMove allowed: the fields sent replace the stored
// ones (an SQL NULL parameter is a field not sent; JSON null stores null). A repeated running of an
// attempt under a lease is a heartbeat: the lease was granted from updated_at to timeout_at, and starts
// again from now. Parameters: id, status, input, output, error, actor.
const updateOutside = `UPDATE task_executions t SET status = $2,
	input = CASE WHEN $3::jsonb IS NULL THEN t.input ELSE nullif($3::jsonb, 'null') END,
	output = CASE WHEN $4::jsonb IS NULL THEN t.output ELSE nullif($4::jsonb, 'null') END,
	error = coalesce($5::jsonb, t.error),
	started_at = CASE WHEN $2 IN ('running', 'completed', 'failed') THEN coalesce(t.started_at, now()) ELSE t.started_at END,
	completed_at = CASE WHEN $2 IN ('completed', 'failed', 'cancelled') THEN coalesce(t.completed_at, now()) END,
	timeout_at = CASE WHEN t.status = 'running' AND $2 = 'running' AND t.timeout_at > t.updated_at
		THEN now() + (t.timeout_at - t.updated_at) ELSE t.timeout_at END,
	updated_at = now(), modified_by = $6
	WHERE t.id = $1 RETURNING `
