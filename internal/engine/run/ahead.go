package run

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// Prepared holds the outcomes of an execution's first tasks that only compute (executors.Computes:
// transform, condition), run by Prepare before the transaction that starts the execution. The start
// records them in its own transaction, with what they make ready (see inline), so that a flow whose
// first task reshapes or decides costs one transaction to start, not two or three.
//
// They run before the transaction because they are tenants' programs, which never run while the
// engine holds row locks; their input is the execution's, known before it exists.
type Prepared struct {
	exec  uuid.UUID
	key   planKey
	ahead map[string]outcome
}

// Prepare runs the first tasks of the execution x that only compute, for StartHere (or Create) to
// record: x.ID must be the id the execution will get. It returns nil when there is nothing to record
// ahead; a task that fails, or whose organization has no executor free at once, is left to run as
// usual after the start commits, with its retries.
func (e *Engine) Prepare(ctx context.Context, x Execution) *Prepared {
	if x.ID == uuid.Nil {
		return nil
	}
	p, err := e.plan(ctx, e.db, x.Flow, x.Version)
	if err != nil {
		return nil // the start reports it
	}
	input := x.input()
	var pre *Prepared
	for _, n := range p.roots() {
		task := p.tasks[n]
		ex := e.execs[task.Type]
		if executors.KindOf(ex) != executors.Computes || !p.runsAhead(n) || !e.running.TryAcquire(x.Org) {
			continue
		}
		o, ok := outcome{}, false
		if vars, err := rootVars(p, n, input); err == nil {
			o, ok = e.runAhead(ctx, taskArgs{Execution: x.ID, Task: n, Org: x.Org},
				claimed{org: x.Org, flow: x.Flow, version: x.Version, input: input, vars: vars}, p, ex)
		}
		e.running.Release(x.Org)
		if !ok {
			continue
		}
		if pre == nil {
			pre = &Prepared{exec: x.ID, key: p.key, ahead: map[string]outcome{}}
		}
		pre.ahead[n] = o
	}
	return pre
}

// runAhead runs attempt a, claimed as c, before any transaction, and decides the edges out of it, as
// execute and finish do for an attempt a worker runs; false when it did not complete. It runs first
// tasks (Prepare) and the successors a completion makes ready (stepsAhead).
func (e *Engine) runAhead(ctx context.Context, a taskArgs, c claimed, p *plan, ex executors.Executor) (o outcome, ok bool) {
	task := p.tasks[a.Task]
	input := json.RawMessage(c.input)
	ctx, span := e.startAttempt(ctx, a, task, c)
	o = outcome{task: task, plan: p, vars: c.vars}
	defer func() { endAttempt(span, o, nil) }()
	var data any
	err := json.Unmarshal(input, &data)
	if err != nil {
		return o, false
	}
	// The request or the step that runs it ahead waits for it, so it gets no longer than an edge condition
	// does; a slower program gives up here and runs after the transaction, with the whole of its timeout.
	timeout := e.jq.limit
	if timeout <= 0 {
		timeout = DefaultEdgeTime
	}
	if task.TimeoutSeconds != nil {
		timeout = min(timeout, time.Duration(*task.TimeoutSeconds)*time.Second)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	began := time.Now()
	o.result, o.err = ex.Run(runCtx, executors.Input{Org: a.Org, Execution: a.Execution, Task: *task, Idx: a.Idx, Data: data,
		Raw: input, Key: fmt.Sprintf("%s/%s/%d", a.Execution, a.Task, a.Idx), Vars: c.vars, Flow: c.flow, Version: c.version,
		Preds: p.preds[a.Task]})
	cancel()
	if time.Since(began) > e.aheadBudget {
		// A slow program that did not complete (one that spins to its limit, say) runs again after the
		// transaction, so its time ahead was spent twice: the version's later attempts of it run only
		// after their transaction. One that completed is recorded, and may run ahead again.
		defer func() {
			if !ok {
				p.long.Store(a.Task, true)
			}
		}()
	}
	r := o.result
	if o.err != nil || r.Park || !r.WaitUntil.IsZero() || r.InTx != nil {
		return o, false
	}
	if err := e.encode(ctx, &o, true); err != nil || o.err != nil {
		return o, false
	}
	src, err := e.producedBy(ctx, p, a, o)
	if err != nil {
		return o, false
	}
	if o.dec, err = e.decide(ctx, p, src); err != nil {
		return o, false
	}
	return o, true
}

// rootVars are the variables handed to first task n (nil when it reads none): it has nothing upstream,
// so only $input holds something.
func rootVars(p *plan, n string, input json.RawMessage) (json.RawMessage, error) {
	need, ok := p.needs[n]
	if !ok {
		return nil, nil
	}
	v := jqrun.Vars{Tasks: map[string]json.RawMessage{}}
	if need.Input {
		v.Input = input
	}
	return json.Marshal(v)
}
