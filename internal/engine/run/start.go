package run

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Execution names a new execution for Start.
type Execution struct {
	ID, Org, Flow uuid.UUID
	Version       int
	Input         json.RawMessage
}

// Start lays out the execution's tasks and queues its first ones, in the caller's transaction: the
// execution exists exactly when its first tasks are queued. The version must be valid.
func (e *Engine) Start(ctx context.Context, tx *sqlx.Tx, x Execution) error {
	p, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(p.order))
	waiting := make([]int64, 0, len(p.order))
	for _, n := range p.order {
		names = append(names, n)
		waiting = append(waiting, int64(len(p.preds[n])))
	}
	if len(names) == 0 {
		_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'completed', output = '{}', started_at = now(),
			finished_at = now(), updated_at = now() WHERE id = $1`, x.ID)
		return err
	}
	if _, err := tx.ExecContext(ctx, `WITH t AS (INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id,
			state, waiting_on, held, attempts)
		SELECT $1, n, $2, CASE WHEN w = 0 THEN 'ready' ELSE 'waiting' END, w, w = 0, CASE WHEN w = 0 THEN 1 ELSE 0 END
		FROM unnest($3::text[], $4::bigint[]) AS t (n, w))
		UPDATE flow_executions SET tasks_left = $5 WHERE id = $1`,
		x.ID, x.Org, pq.Array(names), pq.Array(waiting), len(names)); err != nil {
		return err
	}
	input := x.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	var atts []attempt
	for _, n := range p.roots() {
		atts = append(atts, attempt{task: n, input: input, external: p.tasks[n].Type == External})
	}
	return e.enqueue(ctx, tx, x.Org, x.ID, atts, nil)
}
