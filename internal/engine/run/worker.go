package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// taskWorker runs the attempts of tasks. River delivers each job at least once; the attempt's status
// makes a repeated delivery harmless: only a queued attempt is claimed, and only a running one finished.
type taskWorker struct {
	river.WorkerDefaults[taskArgs]
	e *Engine
}

// claimed is an attempt this process took, with what running it needs.
type claimed struct {
	org, flow uuid.UUID
	version   int
	input     []byte
}

func (w *taskWorker) Work(ctx context.Context, job *river.Job[taskArgs]) error {
	e, a := w.e, job.Args
	if a.Resume {
		return e.finish(ctx, job, a, outcome{output: a.Output})
	}
	c, ok, err := e.claim(ctx, a)
	if err != nil || !ok {
		return err
	}
	return e.execute(ctx, job, a, c)
}

// execute runs a claimed attempt and finishes it; job is the River job that delivered it (nil when
// this process claimed it itself, see local).
func (e *Engine) execute(ctx context.Context, job *river.Job[taskArgs], a taskArgs, c claimed) (err error) {
	p, err := e.plan(ctx, e.db, c.flow, c.version)
	if err != nil {
		return err
	}
	task := p.tasks[a.Task]
	if task == nil {
		return fmt.Errorf("task %q is not in version %d of flow %s", a.Task, c.version, c.flow)
	}
	ctx, span := e.startAttempt(ctx, a, task, c)
	o := outcome{task: task, plan: p}
	defer func() { endAttempt(span, o, err) }()
	timeout := DefaultTimeout
	if task.TimeoutSeconds != nil {
		timeout = time.Duration(*task.TimeoutSeconds) * time.Second
	}
	stop := e.heartbeat(ctx, a)
	defer stop()
	ex := e.execs[task.Type]
	if ex == nil {
		ex = executors.Unavailable(task.Type, "no executor is registered for it")
	}
	var data any
	if len(c.input) > 0 {
		if err := json.Unmarshal(c.input, &data); err != nil {
			return err
		}
	}
	// The lease is renewed while the attempt waits for its turn, so waiting does not make it look lost.
	select {
	case e.running <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	res, runErr := ex.Run(runCtx, executors.Input{Org: c.org, Execution: a.Execution, Task: *task, Idx: a.Idx, Data: data,
		Key: fmt.Sprintf("%s/%s/%d", a.Execution, a.Task, a.Idx)})
	cancel()
	<-e.running
	if runErr != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		runErr = timeoutError{timeout}
	}
	o.result, o.err = res, runErr
	return e.finish(ctx, job, a, o)
}

type timeoutError struct{ d time.Duration }

func (t timeoutError) Error() string { return fmt.Sprintf("the attempt took longer than %s", t.d) }

// claim marks a queued attempt running under a lease, and the execution running if it was queued. It reports false when the attempt is not queued any more (another delivery has it, or the
// execution stopped).
func (e *Engine) claim(ctx context.Context, a taskArgs) (claimed, bool, error) {
	var c claimed
	// One statement, locking the attempt and then (only while it is queued) the execution, in the order
	// of every engine transaction.
	err := e.db.QueryRowxContext(ctx, `
		WITH att AS (
			UPDATE task_executions t SET status = 'running', started_at = now(), updated_at = now(),
				timeout_at = now() + make_interval(secs => $4)
			FROM flow_executions x
			WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3 AND t.status = 'queued'
			  AND x.id = t.flow_execution_id AND x.status IN ('queued', 'running', 'in_progress', 'awaiting_input')
			RETURNING t.input, x.organization_id, x.flow_id, x.flow_version, x.status),
		exec AS (
			UPDATE flow_executions SET status = 'running', started_at = now(), updated_at = now()
			WHERE id = $1 AND status = 'queued' AND EXISTS (SELECT 1 FROM att WHERE att.status = 'queued'))
		SELECT coalesce(input::text, '{}'), organization_id, flow_id, flow_version FROM att`,
		a.Execution, a.Task, a.Idx, e.lease.Seconds()).Scan(&c.input, &c.org, &c.flow, &c.version)
	if errors.Is(err, sql.ErrNoRows) {
		// Not queued any more (another delivery has it), or its execution stopped: an attempt queued by a
		// sibling's outcome while the execution was being stopped never runs.
		_, err = e.db.ExecContext(ctx, `UPDATE task_executions t SET status = 'cancelled', completed_at = now(), updated_at = now()
			FROM flow_executions x WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3
			AND t.status = 'queued' AND x.id = t.flow_execution_id
			AND x.status NOT IN ('queued', 'running', 'in_progress', 'awaiting_input')`, a.Execution, a.Task, a.Idx)
		return c, false, err
	}
	return c, err == nil, err
}

// heartbeat renews the attempt's lease while its executor runs, so that only an attempt whose process
// died lets its lease run out (and is run again by the sweep). It returns the function that stops it.
func (e *Engine) heartbeat(ctx context.Context, a taskArgs) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(e.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := e.db.ExecContext(ctx, `UPDATE task_executions SET timeout_at = now() + make_interval(secs => $4)
					WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3 AND status = 'running'`,
					a.Execution, a.Task, a.Idx, e.lease.Seconds()); err != nil && ctx.Err() == nil && e.log != nil {
					e.log.Warn("renewing a task lease failed", "execution", a.Execution, "task", a.Task, "error", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
