package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace"
)

// taskArgs are the River job of one attempt. Resume marks the job that ends a wait (a delay): the
// attempt then completes with Output.
type taskArgs struct {
	Execution uuid.UUID       `json:"execution"`
	Task      string          `json:"task"`
	Idx       int             `json:"idx"`
	Resume    bool            `json:"resume,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	// Stuck names the job this one stands in for, one that River still counts as running although its
	// process died (see SweepLost); it keeps the stand-in unique.
	Stuck int64 `json:"stuck,omitempty"`
	// Org is the execution's organization, so that a worker knows whose share an attempt counts against
	// before it claims it (jobs queued before it was added carry none, and the worker looks it up).
	Org uuid.UUID `json:"org,omitzero"`
}

func (taskArgs) Kind() string { return "flow_task" }

// attempt is an attempt to create, queued.
type attempt struct {
	task  string
	idx   int
	input json.RawMessage
	// vars are the values of the variables its expressions read (nil: none), see walk.vars.
	vars json.RawMessage
	// at is when it may start (zero: now); a retry waits for its backoff.
	at time.Time
	// external attempts get no job: an outside worker claims them.
	external bool
	// ahead attempts ran before the transaction (see Prepared): they are written running, for the
	// transaction to record their outcome, and get neither a job nor a place here.
	ahead bool
}

// enqueue writes queued attempts and inserts their jobs in tx, so they exist exactly when the change
// that made the tasks ready commits. With a batch (the transaction is one this process commits itself),
// attempts this process has room for are written as running under its lease and go to the batch instead
// of River, to start as soon as the transaction commits.
func (e *Engine) enqueue(ctx context.Context, tx *sqlx.Tx, org, exec uuid.UUID, atts []attempt, b *batch) error {
	_, err := e.enqueueWith(ctx, tx, cte{}, org, exec, atts, b)
	return err
}

// cte is a data-modifying WITH item to run in enqueue's statement, saving a round trip; its
// placeholders start at $8.
type cte struct {
	sql  string
	args []any
	// counts says the item is counted's s, whose tasks_left and status the statement returns.
	counts bool
}

// enqueueWith is enqueue with a WITH item in its statement; it returns the item's counts when it has
// them.
func (e *Engine) enqueueWith(ctx context.Context, tx *sqlx.Tx, with cte, org, exec uuid.UUID, atts []attempt, b *batch) (counts, error) {
	var n counts
	if len(atts) == 0 {
		if with.sql != "" {
			return n, errors.New("nothing to queue with the statement given") // a valid flow always has first tasks
		}
		return n, nil
	}
	prefix := ""
	if with.sql != "" {
		prefix = "WITH " + with.sql + " "
	}
	names, idxs, inputs := make([]string, len(atts)), make([]int64, len(atts)), make([]string, len(atts))
	vars := make([]string, len(atts))
	for i, a := range atts {
		names[i], idxs[i], inputs[i], vars[i] = a.task, int64(a.idx), string(a.input), string(a.vars)
	}
	here, taken := e.claimHere(org, atts, b)
	// Slots taken for attempts that turn out to exist already are given back.
	var mine []struct {
		Name string `db:"task_name"`
		Idx  int    `db:"task_execution_idx"`
		counts
	}
	returning := ""
	if with.counts {
		returning = `, (SELECT tasks_left FROM s) AS tasks_left, (SELECT status FROM s) AS status`
	}
	// The variables come last, after the placeholders of with.
	varsAt := fmt.Sprintf("$%d", 8+len(with.args))
	err := tx.SelectContext(ctx, &mine, prefix+`INSERT INTO task_executions (organization_id, flow_execution_id, task_name,
		task_execution_idx, status, input, vars, started_at, timeout_at)
		SELECT $1, $2, n, i, CASE WHEN h THEN 'running' ELSE 'queued' END, inp::jsonb, nullif(v, '')::jsonb,
			CASE WHEN h THEN now() END, CASE WHEN h THEN now() + make_interval(secs => $7) END
		FROM unnest($3::text[], $4::bigint[], $5::text[], $6::boolean[], `+varsAt+`::text[]) AS a (n, i, inp, h, v)
		ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING
		RETURNING task_name, task_execution_idx`+returning,
		append(append([]any{org, exec, pq.Array(names), pq.Array(idxs), pq.Array(inputs), pq.Array(here), e.lease.Seconds()},
			with.args...), pq.Array(vars))...)
	if err != nil {
		for range taken {
			e.local.release(org)
		}
		return n, err
	}
	if with.counts {
		if len(mine) > 0 {
			n = mine[0].counts
		} else if err := tx.GetContext(ctx, &n, `SELECT tasks_left, status FROM flow_executions WHERE id = $1`, exec); err != nil {
			return n, err // every attempt existed already, so none returned what s counted: it is read back
		}
	}
	inserted := make(map[string]bool, len(mine))
	for _, m := range mine {
		inserted[m.Name] = true
	}
	params := e.place(ctx, org, exec, atts, here, inserted, b, nil)
	if len(params) == 0 {
		return n, nil
	}
	_, err = e.queue.InsertManyTx(ctx, tx.Tx, params)
	return n, err
}

// claimHere takes a place here for each attempt this process may run as soon as the transaction commits
// (with a batch: the transaction is one this process commits itself), and counts those it took; the
// attempts run ahead are here already and take none.
func (e *Engine) claimHere(org uuid.UUID, atts []attempt, b *batch) (here []bool, taken int) {
	here = make([]bool, len(atts))
	for i, a := range atts {
		if a.ahead {
			here[i] = true
		} else if b != nil && !a.external && a.at.IsZero() && e.local.take(org) {
			here[i] = true
			taken++
		}
	}
	return here, taken
}

// runHere is attempt a of exec, claimed here in b's transaction, as this process runs it once that
// commits; it continues the trace of ctx.
func runHere(ctx context.Context, org, exec uuid.UUID, a attempt, b *batch) localRun {
	return localRun{args: taskArgs{Execution: exec, Task: a.task, Idx: a.idx, Org: org},
		claimed: claimed{org: org, flow: b.flow, version: b.version, input: a.input, vars: a.vars},
		parent:  trace.SpanContextFromContext(ctx)}
}

// place hands exec's attempts that were written (inserted, by task name) to where they run: those
// claimed here to b, the others to River (appended to params, which it returns), an outside worker's to
// nobody. A place claimed for an attempt that existed already is given back.
func (e *Engine) place(ctx context.Context, org, exec uuid.UUID, atts []attempt, here []bool, inserted map[string]bool, b *batch,
	params []river.InsertManyParams) []river.InsertManyParams {
	for i, a := range atts {
		if a.ahead {
			continue
		}
		if here[i] {
			if inserted[a.task] {
				b.runs = append(b.runs, runHere(ctx, org, exec, a, b))
			} else {
				e.local.release(org)
			}
			continue
		}
		if a.external {
			continue
		}
		var opts *river.InsertOpts
		if !a.at.IsZero() {
			opts = &river.InsertOpts{ScheduledAt: a.at}
		}
		params = append(params, river.InsertManyParams{Args: taskArgs{Execution: exec, Task: a.task, Idx: a.idx, Org: org}, InsertOpts: opts})
	}
	return params
}
