package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// DefaultEdgeTime is the deadline of one edge condition unless Deps.EdgeTime says otherwise.
const DefaultEdgeTime = time.Second

// edgeJQ evaluates edge conditions in the pool of bounded child processes.
type edgeJQ struct {
	pool  *jqrun.Pool // nil: jqrun.Shared
	limit time.Duration
}

// eval is the first result of expr on output, with the variables' values vars, as JSON (nil for null).
func (q edgeJQ) eval(ctx context.Context, expr string, output, vars json.RawMessage) (json.RawMessage, error) {
	pool := q.pool
	if pool == nil {
		var err error
		if pool, err = jqrun.Shared(); err != nil {
			return nil, err
		}
	}
	limit := q.limit
	if limit <= 0 {
		limit = DefaultEdgeTime
	}
	return pool.EvalJSON(ctx, expr, output, vars, limit)
}

// evalFunc evaluates an edge condition (edgeJQ.eval).
type evalFunc func(ctx context.Context, expr string, output, vars json.RawMessage) (json.RawMessage, error)

// decision is which links out of a task hold, decided from its output before the transaction that records
// it opens, so that no tenant's program runs while that transaction holds its row locks. It applies only to
// the version it was decided on.
type decision struct {
	key  planKey
	held []bool // one per link of plan.succ[task], in order
}

// decide evaluates the links out of a task for what its attempt produced. A condition that fails does not
// hold; one that passes its deadline or memory bound fails the attempt (for good: it would pass it again),
// so that the author sees why the flow stopped instead of a branch silently skipped.
func (e *Engine) decide(ctx context.Context, p *plan, src produced) (*decision, error) {
	links := p.succ[src.task]
	d := &decision{key: p.key, held: make([]bool, len(links))}
	for i, l := range links {
		h, err := l.holds(ctx, e.jq.eval, src)
		if jqrun.IsLimit(err) {
			return nil, executors.Permanent(fmt.Errorf("the condition of the edge %s → %s: %w", src.task, l.target, err))
		}
		if err != nil {
			return nil, err
		}
		d.held[i] = h
	}
	return d, nil
}

// planOf is the plan of an execution's version, read without a lock (an execution's version changes only
// when it is run again, which an attempt of it outlives only as a cancelled one).
func (e *Engine) planOf(ctx context.Context, exec uuid.UUID) (*plan, error) {
	var x execRow
	if err := e.db.GetContext(ctx, &x, `SELECT organization_id, flow_id, flow_version, status, tasks_left
		FROM flow_executions WHERE id = $1`, exec); err != nil {
		return nil, err
	}
	return e.plan(ctx, e.db, x.Flow, x.Version)
}

// holds is whether the link out of a completed task holds: one of its edges does. Out of a condition task
// an edge holds only when the task's result is the one it follows; an edge with a condition then holds
// when the condition yields true on the output, one without holds. A condition that cannot be evaluated
// on this output does not hold; the error returned is a limit passed, or an evaluator that could not
// answer.
func (l link) holds(ctx context.Context, eval evalFunc, src produced) (bool, error) {
	var vars json.RawMessage
	for i, c := range l.conds {
		if src.typ == "condition" && (src.result == nil || *src.result != l.follows[i]) {
			continue
		}
		if c == nil {
			return true, nil
		}
		if l.vars && vars == nil {
			var err error
			if vars, err = src.condVars(); err != nil {
				return false, err
			}
		}
		v, err := eval(ctx, *c, src.output, vars)
		var failed *jqrun.EvalError
		switch {
		case errors.As(err, &failed):
			continue
		case err != nil:
			return false, err
		case string(v) == "true":
			return true, nil
		}
	}
	return false, nil
}

// errUndecided is a completion that reached a transaction without its edges decided before it.
var errUndecided = errors.New("run: the edges out of a completed task were not decided before its transaction")

// holdsHere is whether a link out of a finished task holds, inside the walk: as decided before the
// transaction. Nothing is evaluated here, for the transaction holds row locks.
func (w *walk) holdsHere(f final, i int) (bool, error) {
	if f.dec == nil || f.dec.key != w.p.key || i >= len(f.dec.held) {
		return false, errUndecided
	}
	return f.dec.held[i], nil
}

// conditional is whether an edge out of task has a condition, which only the pool may evaluate.
func (p *plan) conditional(task string) bool {
	for _, l := range p.succ[task] {
		if l.conditional() {
			return true
		}
	}
	return false
}

// decidePlain decides the links out of a task none of whose edges has a condition, which needs no
// evaluator: it may run inside a transaction.
func (e *Engine) decidePlain(p *plan, src produced) (*decision, error) {
	if p.conditional(src.task) {
		return nil, errUndecided
	}
	links := p.succ[src.task]
	d := &decision{key: p.key, held: make([]bool, len(links))}
	for i, l := range links {
		h, err := l.holdsPlain(src)
		if err != nil {
			return nil, err
		}
		d.held[i] = h
	}
	return d, nil
}

// conditional is whether one of the link's edges has a condition.
func (l link) conditional() bool {
	for _, c := range l.conds {
		if c != nil {
			return true
		}
	}
	return false
}

// holdsPlain is holds for a link without conditions, which evaluates nothing.
func (l link) holdsPlain(src produced) (bool, error) {
	if l.conditional() {
		return false, errUndecided
	}
	noEval := func(context.Context, string, json.RawMessage, json.RawMessage) (json.RawMessage, error) {
		return nil, errUndecided
	}
	return l.holds(context.Background(), noEval, src)
}
