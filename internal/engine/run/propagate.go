package run

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// completed records a completed attempt and moves the execution on: each successor's counter goes
// down, a successor whose predecessors are all finished becomes ready (when an edge to it held) or is
// skipped (when none did, which its own successors then learn the same way), and the execution
// completes when no task is left.
func (e *Engine) completed(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, a taskArgs, output json.RawMessage) error {
	if _, err := tx.ExecContext(ctx, `
		WITH att AS (UPDATE task_executions SET status = 'completed', output = $4, completed_at = now(), updated_at = now()
		             WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3)
		UPDATE execution_tasks SET state = 'completed', output = $4, updated_at = now()
		WHERE flow_execution_id = $1 AND task_name = $2`, a.Execution, a.Task, a.Idx, string(output)); err != nil {
		return err
	}
	var value any
	if err := json.Unmarshal(output, &value); err != nil {
		return err
	}
	w := walk{e: e, tx: tx, exec: a.Execution, p: p}
	if err := w.finished(ctx, a.Task, true, value); err != nil {
		return err
	}
	if err := e.enqueue(ctx, tx, x.Org, a.Execution, w.ready); err != nil {
		return err
	}
	return e.settle(ctx, tx, x, p, a, w.final)
}

// walk carries the consequences of finished tasks through an execution: the successors' counters,
// the tasks that become ready, and those that are skipped (and, in turn, finished).
type walk struct {
	e     *Engine
	tx    *sqlx.Tx
	exec  uuid.UUID
	p     *plan
	final int       // tasks that reached a final state
	ready []attempt // attempts to queue
}

// finished takes a task that completed (with its output) or was skipped, and every task its
// finishing decides.
func (w *walk) finished(ctx context.Context, task string, completed bool, output any) error {
	w.final++
	for _, l := range w.p.succ[task] {
		holds := false
		if completed {
			var err error
			if holds, err = l.holds(ctx, w.p.tasks[task].Type, output); err != nil {
				return err
			}
		}
		var left int
		var held bool
		if err := w.tx.QueryRowxContext(ctx, `UPDATE execution_tasks SET waiting_on = waiting_on - 1, held = held OR $3,
			updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 RETURNING waiting_on, held`,
			w.exec, l.target, holds).Scan(&left, &held); err != nil {
			return err
		}
		if left == 0 {
			if err := w.decide(ctx, l.target, held); err != nil {
				return err
			}
		}
	}
	return nil
}

// decide settles a task whose predecessors have all finished: it runs when an edge to it held (its
// next attempt is queued), and is skipped otherwise.
func (w *walk) decide(ctx context.Context, task string, held bool) error {
	if !held {
		if _, err := w.tx.ExecContext(ctx, `UPDATE execution_tasks SET state = 'skipped', updated_at = now()
			WHERE flow_execution_id = $1 AND task_name = $2`, w.exec, task); err != nil {
			return err
		}
		return w.finished(ctx, task, false, nil)
	}
	input, err := w.e.inputOf(ctx, w.tx, w.exec, w.p, task)
	if err != nil {
		return err
	}
	var attempts int
	if err := w.tx.GetContext(ctx, &attempts, `UPDATE execution_tasks SET state = 'ready', attempts = attempts + 1,
		updated_at = now() WHERE flow_execution_id = $1 AND task_name = $2 RETURNING attempts`, w.exec, task); err != nil {
		return err
	}
	w.ready = append(w.ready, attempt{task: task, idx: attempts - 1, input: input, external: w.p.tasks[task].Type == External})
	return nil
}

// holds is whether the link from a task with this output holds: an edge with a condition holds when
// the condition yields true; one without holds always, except out of a condition task, whose result
// decides it.
func (l link) holds(ctx context.Context, sourceType string, output any) (bool, error) {
	for _, c := range l.conds {
		if c == nil {
			if sourceType != "condition" {
				return true, nil
			}
			if m, ok := output.(map[string]any); ok && m["result"] == true {
				return true, nil
			}
			continue
		}
		v, err := executors.First(ctx, c, output)
		if err != nil {
			return false, nil // a condition that cannot be evaluated on this output does not hold
		}
		if v == true {
			return true, nil
		}
	}
	return false, nil
}

// inputOf is the input of a task that became ready: its predecessor's output, or, with several, an
// object of the completed predecessors' outputs by name.
func (e *Engine) inputOf(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, p *plan, task string) (json.RawMessage, error) {
	preds := p.preds[task]
	var rows []struct {
		Name   string          `db:"task_name"`
		Output json.RawMessage `db:"output"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT task_name, coalesce(output, 'null') AS output FROM execution_tasks
		WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'completed'`, exec, pq.Array(preds)); err != nil {
		return nil, err
	}
	if len(preds) == 1 && len(rows) == 1 {
		return rows[0].Output, nil
	}
	by := make(map[string]json.RawMessage, len(rows))
	for _, r := range rows {
		by[r.Name] = r.Output
	}
	return json.Marshal(by)
}

// settle counts the tasks that reached a final state and completes the execution when none is left;
// otherwise a running execution whose first task completed is in progress.
func (e *Engine) settle(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, a taskArgs, final int) error {
	// An execution waiting for input goes back to in progress once none of its tasks' current attempts
	// is parked (running with neither a lease nor a wake time). Records outside workers keep of attempts
	// of their own are not the engine's, hence the current-attempt join. The counter is decremented
	// under the row's lock, so exactly one transaction of an execution sees it reach zero.
	var left int
	var status string
	if err := tx.QueryRowxContext(ctx, `UPDATE flow_executions SET tasks_left = tasks_left - $2, updated_at = now(),
		status = CASE
			WHEN status IN ('queued', 'running') THEN 'in_progress'
			WHEN status = 'awaiting_input' AND NOT EXISTS (SELECT 1 FROM task_executions t JOIN execution_tasks k
				ON k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name AND k.attempts = t.task_execution_idx + 1
				WHERE t.flow_execution_id = $1 AND t.status = 'running' AND t.timeout_at IS NULL AND t.wake_at IS NULL)
			THEN 'in_progress'
			ELSE status END
		WHERE id = $1 RETURNING tasks_left, status`, a.Execution, final).Scan(&left, &status); err != nil {
		return err
	}
	if left > 0 || !active(status) {
		return nil
	}
	sinks := p.sinks()
	var rows []struct {
		Name   string          `db:"task_name"`
		Output json.RawMessage `db:"output"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT task_name, coalesce(output, 'null') AS output FROM execution_tasks
		WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'completed'`, a.Execution, pq.Array(sinks)); err != nil {
		return err
	}
	var output json.RawMessage
	switch {
	case len(sinks) == 1 && len(rows) == 1:
		output = rows[0].Output
	default:
		by := make(map[string]json.RawMessage, len(rows))
		for _, r := range rows {
			by[r.Name] = r.Output
		}
		var err error
		if output, err = json.Marshal(by); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'completed', output = $2,
		finished_at = now(), updated_at = now() WHERE id = $1`, a.Execution, string(output))
	return err
}
