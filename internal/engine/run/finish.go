package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/executors"
)

// JSON travels to jsonb columns as text: with lib/pq's binary_parameters a []byte would be sent as
// binary jsonb, which it is not.

// outcome is what an attempt came to: a result, an error, or (for a job that ends a wait) an output.
type outcome struct {
	result executors.Result
	err    error
	task   *dsl.Task
	output json.RawMessage // set when a wait ends
}

// execRow is the execution as finish sees it, under its row lock.
type execRow struct {
	Org       uuid.UUID `db:"organization_id"`
	Flow      uuid.UUID `db:"flow_id"`
	Version   int       `db:"flow_version"`
	Status    string    `db:"status"`
	TasksLeft int       `db:"tasks_left"`
}

// active are the execution statuses in which tasks still run.
func active(status string) bool {
	switch status {
	case "queued", "running", "in_progress", "awaiting_input":
		return true
	}
	return false
}

// finish records an attempt's outcome and everything it causes in one transaction, which also
// completes the job. The execution's row lock orders the outcomes of one execution's tasks.
func (e *Engine) finish(ctx context.Context, job *river.Job[taskArgs], o outcome) error {
	a := job.Args
	return dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
		done := func() error {
			_, err := river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx.Tx, job)
			return err
		}
		var x execRow
		err := tx.GetContext(ctx, &x, `SELECT organization_id, flow_id, flow_version, status, tasks_left
			FROM flow_executions WHERE id = $1 FOR UPDATE`, a.Execution)
		if errors.Is(err, sql.ErrNoRows) {
			return done()
		}
		if err != nil {
			return err
		}
		var status string
		err = tx.GetContext(ctx, &status, `SELECT status FROM task_executions
			WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3 FOR UPDATE`, a.Execution, a.Task, a.Idx)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && status != "running") {
			return done() // finished by an earlier delivery, or cancelled
		}
		if err != nil {
			return err
		}
		if !active(x.Status) {
			if _, err := tx.ExecContext(ctx, `UPDATE task_executions SET status = 'cancelled', completed_at = now(),
				updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
				a.Execution, a.Task, a.Idx); err != nil {
				return err
			}
			return done()
		}
		p, err := e.plan(ctx, tx, x.Flow, x.Version)
		if err != nil {
			return err
		}
		task := p.tasks[a.Task]
		if task == nil {
			return fmt.Errorf("task %q is not in version %d of flow %s", a.Task, x.Version, x.Flow)
		}
		switch {
		case o.err != nil:
			err = e.failed(ctx, tx, x, a, task, o.err)
		case !o.result.WaitUntil.IsZero():
			err = e.wait(ctx, tx, a, o.result)
		default:
			output := o.output
			if output == nil {
				if output, err = json.Marshal(o.result.Output); err != nil {
					return err
				}
			}
			err = e.completed(ctx, tx, x, p, a, output)
		}
		if err != nil {
			return err
		}
		return done()
	})
}

// wait leaves the attempt running until the wait ends, with a job scheduled for then.
func (e *Engine) wait(ctx context.Context, tx *sqlx.Tx, a taskArgs, r executors.Result) error {
	out, err := json.Marshal(r.Output)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE task_executions SET wake_at = $4, timeout_at = $5, updated_at = now()
		WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
		a.Execution, a.Task, a.Idx, r.WaitUntil, r.WaitUntil.Add(sweepGrace)); err != nil {
		return err
	}
	_, err = e.queue.InsertTx(ctx, tx.Tx, taskArgs{Execution: a.Execution, Task: a.Task, Idx: a.Idx, Resume: true, Output: out},
		&river.InsertOpts{ScheduledAt: r.WaitUntil})
	return err
}

// failed records a failed attempt: the next attempt after its backoff while the task's retry allows,
// otherwise the task and the execution fail and nothing else of the execution starts.
func (e *Engine) failed(ctx context.Context, tx *sqlx.Tx, x execRow, a taskArgs, task *dsl.Task, cause error) error {
	kind := "error"
	var te timeoutError
	if errors.As(cause, &te) {
		kind = "timeout"
	}
	msg, _ := json.Marshal(map[string]any{"message": cause.Error(), "type": kind})
	var input json.RawMessage
	if err := tx.GetContext(ctx, &input, `UPDATE task_executions SET status = 'failed', error = $4, completed_at = now(),
		updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3
		RETURNING coalesce(input, '{}')`, a.Execution, a.Task, a.Idx, string(msg)); err != nil {
		return err
	}
	maxAttempts := max(task.Retry.MaxAttempts, 1)
	if !executors.IsPermanent(cause) && a.Idx+1 < maxAttempts {
		backoff := time.Duration(task.Retry.BackoffSeconds * math.Pow(2, float64(a.Idx)) * float64(time.Second))
		if _, err := tx.ExecContext(ctx, `UPDATE execution_tasks SET attempts = attempts + 1, updated_at = now()
			WHERE flow_execution_id = $1 AND task_name = $2`, a.Execution, a.Task); err != nil {
			return err
		}
		at := time.Time{}
		if backoff > 0 {
			at = e.now().Add(backoff)
		}
		return e.enqueue(ctx, tx, x.Org, a.Execution, []attempt{{task: a.Task, idx: a.Idx + 1, input: input, at: at}})
	}
	failure, _ := json.Marshal(map[string]any{"task": a.Task, "message": cause.Error(), "type": kind})
	_, err := tx.ExecContext(ctx, `
		WITH t AS (UPDATE execution_tasks SET state = 'failed', updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2),
		     q AS (UPDATE task_executions SET status = 'cancelled', completed_at = now(), updated_at = now()
		           WHERE flow_execution_id = $1 AND status = 'queued')
		UPDATE flow_executions SET status = 'failed', error = $3, finished_at = now(), updated_at = now() WHERE id = $1`,
		a.Execution, a.Task, string(failure))
	return err
}
