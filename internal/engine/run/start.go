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
	// Pre holds its first tasks' outcomes, run ahead by Prepare (nil: none).
	Pre *Prepared
}

// StartHere lays out the execution's tasks and queues its first ones, in the caller's transaction: the
// execution exists exactly when its first tasks are queued. The version must be valid, and the
// execution's row must hold its number of tasks in tasks_left already (Create inserts it so). The caller
// commits tx and then calls Run on what it returns (Drop when tx did not commit): the first tasks this
// process has room for are written as running under its lease and start here as soon as tx commits,
// with no River job between the request and its first task (see local); the others go to River. The
// returned value is never nil.
func (e *Engine) StartHere(ctx context.Context, tx *sqlx.Tx, x Execution) (*Started, error) {
	b := &batch{flow: x.Flow, version: x.Version, starts: true}
	err := e.start(ctx, tx, x, b)
	return &Started{e: e, b: b}, err
}

// Started holds the first tasks of an execution that StartHere claimed for this process.
type Started struct {
	e *Engine
	b *batch
}

// Run starts them, once the transaction has committed.
func (s *Started) Run() {
	if s != nil {
		s.b.run(s.e)
	}
}

// Drop gives their places back when the transaction did not commit; if it did after all, their leases
// run out and SweepLost runs them.
func (s *Started) Drop() {
	if s != nil {
		s.b.drop(s.e)
	}
}

func (e *Engine) start(ctx context.Context, tx *sqlx.Tx, x Execution, b *batch) error {
	p, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	l, err := lay(p, x)
	if err != nil {
		return err
	}
	if len(l.names) == 0 {
		_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'completed', output = '{}', started_at = now(),
			finished_at = now(), updated_at = now() WHERE id = $1`, x.ID)
		return err
	}
	// The tasks' rows go with the first attempts, in one statement (placeholders of enqueue's come first).
	layout := cte{sql: `t AS (INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id,
			state, waiting_on, held, attempts)
		SELECT $2, n, $1, CASE WHEN w = 0 THEN 'ready' ELSE 'waiting' END, w, w = 0, CASE WHEN w = 0 THEN 1 ELSE 0 END
		FROM unnest($8::text[], $9::bigint[]) AS t (n, w))`,
		args: []any{pq.Array(l.names), pq.Array(l.waiting)}}
	if _, err := e.enqueueWith(ctx, tx, layout, x.Org, x.ID, l.atts, b); err != nil {
		return err
	}
	return e.inline(ctx, tx, x, l.ahead, b)
}

// laid is what the start of a new execution writes: its tasks, each with the number of predecessors it
// waits on, and the attempts of its first tasks (ahead names those whose outcomes Prepare ran ahead).
type laid struct {
	names   []string
	waiting []int64
	atts    []attempt
	ahead   []string
}

// lay is what starting x on plan p writes.
func lay(p *plan, x Execution) (laid, error) {
	l := laid{names: make([]string, 0, len(p.order)), waiting: make([]int64, 0, len(p.order))}
	for _, n := range p.order {
		l.names = append(l.names, n)
		l.waiting = append(l.waiting, int64(len(p.preds[n])))
	}
	input := x.input()
	for _, n := range p.roots() {
		a := attempt{task: n, input: input, external: p.tasks[n].Type == External}
		var err error
		if a.vars, err = rootVars(p, n, input); err != nil {
			return l, err
		}
		if _, ok := x.Pre.outcome(x.ID, p.key, n); ok {
			a.ahead = true
			l.ahead = append(l.ahead, n)
		}
		l.atts = append(l.atts, a)
	}
	return l, nil
}

// input is the execution's input, the input of its first tasks.
func (x Execution) input() json.RawMessage {
	if len(x.Input) == 0 {
		return json.RawMessage(`{}`)
	}
	return x.Input
}
