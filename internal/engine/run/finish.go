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
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// JSON travels to jsonb columns as text: with lib/pq's binary_parameters a []byte would be sent as
// binary jsonb, which it is not.

// outcome is what an attempt came to: a result, an error, or (for a job that ends a wait) an output.
type outcome struct {
	result executors.Result
	err    error
	task   *dsl.Task
	output json.RawMessage // set when a wait ends
	detail json.RawMessage // the result's Detail as JSON (nil: none)
	vars   json.RawMessage // the variables the attempt was handed, when known
	plan   *plan           // the plan the attempt ran on, when known
	dec    *decision       // the links that hold, decided before the transaction
}

// execRow is the execution as finish sees it, under its row lock.
type execRow struct {
	Org       uuid.UUID  `db:"organization_id"`
	Flow      uuid.UUID  `db:"flow_id"`
	Version   int        `db:"flow_version"`
	Status    state.Exec `db:"status"`
	TasksLeft int        `db:"tasks_left"`
}

// finish records an attempt's outcome and everything it causes in one transaction, which also
// completes the job that delivered it, if any. Successors it makes ready that this process has room
// for start here once it commits. Plain completions are recorded with the others of their execution
// that arrive meanwhile (see groups).
func (e *Engine) finish(ctx context.Context, job *river.Job[taskArgs], a taskArgs, o outcome) error {
	resumed := o.output != nil
	completes := o.err == nil && !o.result.Park && o.result.WaitUntil.IsZero()
	if err := e.encode(ctx, &o, completes && !resumed); err != nil {
		return err
	}
	completes = completes && o.err == nil
	if completes {
		// The edges out of the task are decided now, before any transaction: a condition is a tenant's
		// program, and runs while no row is locked.
		p := o.plan
		if p == nil {
			var err error
			if p, err = e.planOf(ctx, a.Execution); err != nil {
				return err
			}
		}
		src, err := e.producedBy(ctx, p, a, o)
		if err != nil {
			return err
		}
		if o.dec, o.err = e.decide(ctx, p, src); o.err != nil {
			if !executors.IsPermanent(o.err) {
				return o.err // the evaluator could not answer: the job is delivered again
			}
			o.output, completes = nil, false
		}
	}
	if completes && !resumed && o.result.InTx == nil {
		var ahead []stepAhead
		if o.plan != nil {
			ahead = e.stepsAhead(ctx, o.plan, a, o)
		}
		return e.finishCompleted(ctx, job, a, o.output, o.detail, o.dec, ahead)
	}
	return e.finishOne(ctx, job, a, o)
}

// finishOne records one outcome in a transaction of its own.
func (e *Engine) finishOne(ctx context.Context, job *river.Job[taskArgs], a taskArgs, o outcome) error {
	b := &batch{}
	err := dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
		if err := e.record(ctx, tx, a, o, b); err != nil {
			return err
		}
		if job == nil {
			return nil
		}
		_, err := river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx.Tx, job)
		return err
	})
	if err != nil {
		b.drop(e)
		return err
	}
	b.run(e)
	return nil
}

// record applies an outcome under the attempt's row lock, taking the others in the engine's lock order
// (see package state).
func (e *Engine) record(ctx context.Context, tx *sqlx.Tx, a taskArgs, o outcome, b *batch) error {
	// The execution is read, not locked: the outcomes of sibling tasks proceed side by side and meet
	// only on the rows they share (a join's counter, the execution's own counter at the end). A stop or
	// a delete that committed first has cancelled this attempt, which the attempt's lock has seen.
	var x struct {
		execRow
		Attempt state.Attempt `db:"attempt_status"`
	}
	err := tx.GetContext(ctx, &x, `SELECT t.status AS attempt_status, x.organization_id, x.flow_id, x.flow_version,
		x.status, x.tasks_left FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id
		WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3 FOR UPDATE OF t`,
		a.Execution, a.Task, a.Idx)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && x.Attempt != state.AttemptRunning) {
		return nil // finished by an earlier delivery, or cancelled
	}
	if err != nil {
		return err
	}
	if !x.Status.Active() {
		_, err := tx.ExecContext(ctx, `UPDATE task_executions SET status = 'cancelled', completed_at = now(),
			updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
			a.Execution, a.Task, a.Idx)
		return err
	}
	p, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	task := p.tasks[a.Task]
	if task == nil {
		return fmt.Errorf("task %q is not in version %d of flow %s", a.Task, x.Version, x.Flow)
	}
	if b != nil {
		b.flow, b.version = x.Flow, x.Version
	}
	if o.err == nil && o.result.InTx != nil {
		o.err = o.result.InTx(ctx, tx)
	}
	switch {
	case o.err != nil:
		return e.failed(ctx, tx, x.execRow, a, task, o.err, b)
	case o.result.Park:
		return e.park(ctx, tx, a, x.Status, o.result.AwaitingInput)
	case !o.result.WaitUntil.IsZero():
		return e.wait(ctx, tx, a, x.Status, o)
	}
	if o.dec == nil || o.dec.key != p.key {
		// The execution was run again on another version since the edges were decided (it had ended,
		// and this attempt outlived its run): the attempt belongs to the earlier run.
		_, err := tx.ExecContext(ctx, `UPDATE task_executions SET status = 'cancelled', completed_at = now(),
			updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
			a.Execution, a.Task, a.Idx)
		return err
	}
	return e.completed(ctx, tx, x.execRow, p, a.Execution, []done{{task: a.Task, idx: a.Idx, output: o.output, detail: o.detail, dec: o.dec}}, b)
}

// wait leaves the attempt running until the wait ends, with a job scheduled for then.
func (e *Engine) wait(ctx context.Context, tx *sqlx.Tx, a taskArgs, status state.Exec, o outcome) error {
	r := o.result
	out, err := json.Marshal(r.Output)
	if err != nil {
		return err
	}
	// No lease while it waits: the scheduled job is durable, and a restart does not start the wait over.
	if _, err := tx.ExecContext(ctx, `UPDATE task_executions SET wake_at = $4, timeout_at = NULL, updated_at = now(),
		detail = $5 WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
		a.Execution, a.Task, a.Idx, r.WaitUntil, nullJSON(o.detail)); err != nil {
		return err
	}
	if _, err = e.queue.InsertTx(ctx, tx.Tx, taskArgs{Execution: a.Execution, Task: a.Task, Idx: a.Idx, Resume: true, Output: out},
		&river.InsertOpts{ScheduledAt: r.WaitUntil}); err != nil {
		return err
	}
	return e.markRunning(ctx, tx, a.Execution, status)
}

// failed records a failed attempt: the next attempt after its backoff while the task's retry allows,
// otherwise the task and the execution fail and nothing else of the execution starts.
func (e *Engine) failed(ctx context.Context, tx *sqlx.Tx, x execRow, a taskArgs, task *dsl.Task, cause error, b *batch) error {
	kind := "error"
	var te timeoutError
	switch {
	case errors.As(cause, &te):
		kind = "timeout"
	case jqrun.IsLimit(cause):
		kind = "limit_exceeded"
	}
	msg, _ := json.Marshal(map[string]any{"message": storedText(cause.Error()), "type": kind})
	to, attemptErr := state.AttemptFailed, new(string(msg))
	if errors.As(cause, new(workerCancelled{})) {
		to, attemptErr = state.AttemptCancelled, nil
	}
	var was struct {
		Input json.RawMessage `db:"input"`
		Vars  []byte          `db:"vars"` // text: "" for none
	}
	if err := tx.GetContext(ctx, &was, `UPDATE task_executions SET status = $5, error = $4, completed_at = now(),
		updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3
		RETURNING coalesce(input, '{}') AS input, coalesce(vars::text, '') AS vars`, a.Execution, a.Task, a.Idx, attemptErr, string(to)); err != nil {
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
		if err := e.enqueue(ctx, tx, x.Org, a.Execution, []attempt{{task: a.Task, idx: a.Idx + 1, input: was.Input, vars: was.Vars, at: at,
			external: task.Type == External}}, b); err != nil {
			return err
		}
		return e.markRunning(ctx, tx, a.Execution, x.Status)
	}
	failure, _ := json.Marshal(map[string]any{"task": a.Task, "message": storedText(cause.Error()), "type": kind})
	return e.failExecution(ctx, tx, x, a, failure)
}
