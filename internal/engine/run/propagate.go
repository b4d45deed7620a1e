package run

import (
	"context"
	"encoding/json"
	"slices"
	"sort"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// done is an attempt of one execution that completed with output.
type done struct {
	task   string
	idx    int
	output json.RawMessage
	detail json.RawMessage // recorded on the attempt (nil: none)
	dec    *decision       // the links that hold, decided before the transaction (nil: decide in it)
}

// completed records completed attempts of one execution (one, or several that finished together) and
// moves the execution on: each successor's counter goes down, a successor whose predecessors are all
// finished becomes ready (when an edge to it held) or is skipped (when none did, which its own
// successors then learn the same way), and the execution completes when no task is left. The
// statements are per round of the walk, not per task, so siblings recorded together cost what one does.
func (e *Engine) completed(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, exec uuid.UUID, ds []done, b *batch) error {
	names, idxs, outs := make([]string, len(ds)), make([]int64, len(ds)), make([]string, len(ds))
	details := make([]string, len(ds))
	finished := make([]final, len(ds))
	for i, d := range ds {
		names[i], idxs[i], outs[i], details[i] = d.task, int64(d.idx), string(d.output), string(d.detail)
		finished[i] = final{task: d.task, completed: true, output: d.output, dec: d.dec}
	}
	if _, err := tx.ExecContext(ctx, `
		WITH d AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[]) AS d (n, i, o, dt)),
		att AS (UPDATE task_executions t SET status = 'completed', output = d.o::jsonb, completed_at = now(), updated_at = now(),
		        detail = coalesce(nullif(d.dt, '')::jsonb, t.detail)
		        FROM d WHERE t.flow_execution_id = $1 AND t.task_name = d.n AND t.task_execution_idx = d.i`+inNames("t.task_name", "$2")+`)
		UPDATE execution_tasks k SET state = 'completed', output = d.o::jsonb, updated_at = now()
		FROM d WHERE k.flow_execution_id = $1 AND k.task_name = d.n`+inNames("k.task_name", "$2"),
		exec, pq.Array(names), pq.Array(idxs), pq.Array(outs), pq.Array(details)); err != nil {
		return err
	}
	return e.advance(ctx, tx, x, p, exec, finished, b)
}

// advance walks what finished tasks decide, queues the attempts that become ready and settles the
// execution.
func (e *Engine) advance(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, exec uuid.UUID, finished []final, b *batch) error {
	return e.advanceFrom(ctx, tx, x, p, exec, finished, 0, b)
}

// advanceFrom is advance counting, besides the tasks the walk finishes, before tasks that reached a
// final state and are not on the count yet.
func (e *Engine) advanceFrom(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, exec uuid.UUID, finished []final, before int, b *batch) error {
	w := walk{e: e, tx: tx, exec: exec, p: p, final: before}
	if err := w.finish(ctx, finished); err != nil {
		return err
	}
	if len(w.ready) == 0 {
		return e.settle(ctx, tx, x, p, exec, w.final)
	}
	// The count goes with the attempts, in their statement: a step of a chain sends one statement
	// fewer. Tasks were made ready, so some are left and the execution does not end here.
	n, err := e.enqueueWith(ctx, tx, cte{sql: counted("$2", "$8"), args: []any{w.final}, counts: true}, x.Org, exec, w.ready, b)
	if err != nil {
		return err
	}
	return e.settled(ctx, tx, p, exec, n)
}

// final is a task that reached a final state: completed (with its output) or skipped.
type final struct {
	task      string
	completed bool
	output    json.RawMessage
	dec       *decision
	// only, when set, are the successors this finishing concerns (the others have learnt it already).
	only []string
}

// walk carries the consequences of finished tasks through an execution: the successors' counters,
// the tasks that become ready, and those that are skipped (and, in turn, finished).
type walk struct {
	e     *Engine
	tx    *sqlx.Tx
	exec  uuid.UUID
	p     *plan
	final int             // tasks that reached a final state
	ready []attempt       // attempts to queue
	input json.RawMessage // the execution's input, for roots run again
	// mem, when set, is the layout of a new execution the walk goes over in memory, before it is
	// written (see walkAhead); tx is then nil.
	mem *memLayout
}

// finish takes tasks that finished and, round by round, every task their finishing decides.
func (w *walk) finish(ctx context.Context, finished []final) error {
	for len(finished) > 0 {
		w.final += len(finished)
		type dec struct {
			n    int64
			held bool
		}
		decs := map[string]*dec{}
		for _, f := range finished {
			for i, l := range w.p.succ[f.task] {
				if f.only != nil && !slices.Contains(f.only, l.target) {
					continue
				}
				holds := false
				if f.completed {
					var err error
					if holds, err = w.holdsHere(f, i); err != nil {
						return err
					}
				}
				d := decs[l.target]
				if d == nil {
					d = &dec{}
					decs[l.target] = d
				}
				d.n++
				d.held = d.held || holds
			}
		}
		if len(decs) == 0 {
			return nil
		}
		targets := make([]string, 0, len(decs))
		for t := range decs {
			targets = append(targets, t)
		}
		sort.Strings(targets) // rows are locked in name order by every transaction
		ns, hs := make([]int64, len(targets)), make([]bool, len(targets))
		for i, t := range targets {
			ns[i], hs[i] = decs[t].n, decs[t].held
		}
		skipped, err := w.count(ctx, targets, ns, hs)
		if err != nil {
			return err
		}
		finished = nil
		for _, t := range skipped {
			finished = append(finished, final{task: t})
		}
		if err := w.skip(ctx, skipped); err != nil {
			return err
		}
	}
	return nil
}

// settle counts the tasks that reached a final state and completes the execution when none is left;
// otherwise a running execution whose first task completed is in progress (see counted).
func (e *Engine) settle(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, exec uuid.UUID, final int) error {
	var n counts
	if err := tx.GetContext(ctx, &n, `WITH `+counted("$1", "$2")+` SELECT tasks_left, status FROM s`, exec, final); err != nil {
		return err
	}
	return e.settled(ctx, tx, p, exec, n)
}

// counts is where the count of an execution's tasks left it.
type counts struct {
	Left   int        `db:"tasks_left"`
	Status state.Exec `db:"status"`
}

// counted is the WITH item s that takes final (a placeholder) tasks off the count of the execution exec
// (a placeholder) and returns its tasks_left and status; it locks the execution's row, always last in
// the engine's transactions, and tells whether this transaction is the one that saw the count reach
// zero. An execution waiting for input goes back to in progress once none of its tasks' current
// attempts is parked (running with neither a lease nor a wake time). Records outside workers keep of
// attempts of their own are not the engine's, hence the current-attempt join.
func counted(exec, final string) string {
	return `s AS (UPDATE flow_executions SET tasks_left = tasks_left - ` + final + `::int, updated_at = now(),
		started_at = coalesce(started_at, now()),
		status = CASE
			WHEN status IN ('queued', 'running') THEN 'in_progress'
			WHEN status = 'awaiting_input' AND ` + noneParked(exec) + ` THEN 'in_progress'
			ELSE status END
		WHERE id = ` + exec + ` RETURNING tasks_left, status)`
}

// noneParked is the SQL condition that no current attempt of the execution exec (a placeholder) is
// parked: running with neither a lease nor a wake time.
func noneParked(exec string) string {
	return `NOT EXISTS (SELECT 1 FROM task_executions t JOIN execution_tasks k
		ON k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name AND k.attempts = t.task_execution_idx + 1
		WHERE t.flow_execution_id = ` + exec + ` AND t.status = 'running' AND t.timeout_at IS NULL AND t.wake_at IS NULL)`
}

// stillAwaiting moves an execution that counted left waiting for input to in progress when none of its
// attempts is parked any more. counted decides with its statement's snapshot, taken before it waited for
// the execution's row: a sibling whose review completed in a transaction that committed meanwhile is
// parked in that snapshot, and that sibling's own count saw this transaction's attempt parked, so both
// would leave the execution waiting for input while nothing waits. A new statement, holding the row,
// sees every commit before it.
func stillAwaiting(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error {
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'in_progress', updated_at = now()
		WHERE id = $1 AND status = 'awaiting_input' AND `+noneParked("$1"), exec)
	return err
}

// settled completes the execution when its count reached zero while it was active. The output is read
// in the statement that completes it: its one final task's output, or an object of its final tasks'
// outputs by name (skipped ones left out). One that the count left waiting for input with tasks left is
// looked at again (stillAwaiting).
func (e *Engine) settled(ctx context.Context, tx *sqlx.Tx, p *plan, exec uuid.UUID, n counts) error {
	if n.Left > 0 && n.Status == state.ExecAwaitingInput {
		return stillAwaiting(ctx, tx, exec)
	}
	if n.Left > 0 || !n.Status.Active() {
		return nil
	}
	sinks := p.sinks()
	if _, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'completed', finished_at = now(), updated_at = now(),
		output = (SELECT CASE WHEN $3 AND count(*) = 1 THEN (array_agg(coalesce(k.output, 'null')))[1]
				ELSE coalesce(jsonb_object_agg(k.task_name, coalesce(k.output, 'null')), '{}') END
			FROM execution_tasks k WHERE k.flow_execution_id = $1 AND k.task_name = ANY($2) AND k.state = 'completed'`+inNames("k.task_name", "$2")+`)
		WHERE id = $1`, exec, pq.Array(sinks), len(sinks) == 1); err != nil {
		return err
	}
	return e.ended(ctx, tx, exec)
}
