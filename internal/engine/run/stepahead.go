package run

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// Successors that only compute (a transform, a condition) and take a completed attempt's output as
// their whole input are run ahead of the transaction that records that completion, as Prepare runs a
// start's first tasks. The transaction then records their outcomes too, round after round, when it
// makes them ready with the input they ran on. A chain of such tasks so commits once every few steps
// instead of once a step, and no step waits for a commit to start; each step is still an attempt with
// its own input, output and times. They run while no row is locked, as every tenant's program does,
// within the executors' fair share; one that fails or runs long, or whose input the transaction finds
// otherwise, runs after the commit as any attempt does.

// maxAhead bounds the successors one completion runs ahead, and aheadFor the time they take: past it,
// what ran ahead is committed before more runs, so that a chain of slow programs still shows its
// progress, and loses little should the process die. A task whose program took longer than aheadFor
// ahead and did not complete runs ahead no more (plan.long).
const (
	maxAhead = maxInline
	aheadFor = 20 * time.Millisecond
)

// stepAhead is the outcome of a successor run ahead, with the input it ran on.
type stepAhead struct {
	task  string
	input json.RawMessage
	o     outcome
}

// stepsAhead runs ahead, one after another, the successors that the completed attempt a (outcome o,
// on plan p) alone makes ready, each with the output of the one before as its input. It stops at
// maxAhead or aheadFor, at a task that makes several ready or none, at one that does not qualify
// (onlyNext), and when the organization has no executor free at once. Attempts of an execution with
// others running here are recorded in rounds with them (groups) and run nothing ahead.
func (e *Engine) stepsAhead(ctx context.Context, p *plan, a taskArgs, o outcome) []stepAhead {
	if a.Org == uuid.Nil || o.dec == nil || !e.groups.alone(a.Execution) {
		return nil
	}
	var steps []stepAhead
	cur, out, dec := a.Task, o.output, o.dec
	for began := time.Now(); len(steps) < maxAhead && time.Since(began) < e.aheadBudget; {
		next, ok := e.onlyNext(p, cur, dec)
		if !ok {
			break
		}
		s, ok := e.takeBeside(a.Execution, next, out, p.key)
		if !ok {
			if s, ok = e.stepAfter(ctx, p, a, cur, out, dec); !ok {
				break
			}
		}
		steps = append(steps, s)
		cur, out, dec = s.task, s.o.output, s.o.dec
	}
	if len(steps) == maxAhead {
		e.runBeside(p, a, cur, out, dec)
	} else {
		e.dropBeside(a.Execution, nil)
	}
	return steps
}

// stepAfter runs ahead the successor of task cur (outcome out, decision dec) that stepsAhead would run
// next, on out; false when there is none, the organization has no executor free at once, or it did not
// complete.
func (e *Engine) stepAfter(ctx context.Context, p *plan, a taskArgs, cur string, out json.RawMessage, dec *decision) (stepAhead, bool) {
	next, ok := e.onlyNext(p, cur, dec)
	if !ok || !e.running.TryAcquire(a.Org) {
		return stepAhead{}, false
	}
	defer e.running.Release(a.Org)
	no, ok := e.runAhead(ctx, taskArgs{Execution: a.Execution, Task: next, Org: a.Org},
		claimed{org: a.Org, flow: p.key.flow, version: p.key.version, input: out}, p, e.execs[p.tasks[next].Type])
	return stepAhead{task: next, input: out, o: no}, ok
}

// onlyNext is the one successor of task that the links held by dec make ready, when it is the only
// one, has task alone upstream, reads no variables, only computes, and has not failed slowly ahead.
func (e *Engine) onlyNext(p *plan, task string, dec *decision) (string, bool) {
	next := ""
	for i, l := range p.succ[task] {
		if i >= len(dec.held) || !dec.held[i] {
			continue
		}
		if next != "" {
			return "", false
		}
		next = l.target
	}
	t := p.tasks[next]
	if _, reads := p.needs[next]; t == nil || reads || len(p.preds[next]) != 1 || !p.runsAhead(next) {
		return "", false
	}
	return next, executors.KindOf(e.execs[t.Type]) == executors.Computes
}

// recordSteps records in tx, after the round that ran them ahead, the outcomes of the successors run
// ahead (stepsAhead) that tx made ready here with the input they ran on, as rounds of completions; what
// those make ready is claimed as usual; those the round wrote as a line (advanceLine) are recorded
// already. It works under a savepoint (underSavepoint), as inline does: should anything fail, tx returns
// to the round as recorded, and those successors run after the commit.
func (e *Engine) recordSteps(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, round []*completion, b *batch) error {
	steps := map[string]stepAhead{}
	for _, c := range round {
		for _, s := range c.ahead[c.recorded:] {
			steps[s.task] = s
		}
	}
	if len(steps) == 0 {
		return nil
	}
	_, err := e.underSavepoint(ctx, tx, b, func() (map[int]bool, error) {
		return e.recordStepRounds(ctx, tx, exec, steps, b)
	}, "recording steps run ahead failed; they run after the transaction", exec)
	return err
}

// recordStepRounds records the steps that b's runs, scanned from the first, are attempts of with their
// input, a round at a time; it returns which of b.runs it recorded.
func (e *Engine) recordStepRounds(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, steps map[string]stepAhead, b *batch) (map[int]bool, error) {
	done := map[int]bool{}
	for from := 0; ; {
		var next []*completion
		for i := from; i < len(b.runs); i++ {
			r := b.runs[i]
			s, ok := steps[r.args.Task]
			if !ok || r.args.Execution != exec || len(r.vars) > 0 || !sameJSON(r.input, s.input) {
				continue
			}
			delete(steps, r.args.Task)
			done[i] = true
			next = append(next, &completion{ctx: ctx, args: r.args, output: s.o.output, detail: s.o.detail, dec: s.o.dec})
		}
		from = len(b.runs)
		if len(next) == 0 {
			return done, nil
		}
		if err := e.completeGroup(ctx, tx, exec, next, nil, b); err != nil {
			return nil, err
		}
	}
}

// sameJSON is whether two JSON texts hold the same value (the engine's input is the database's text of
// it, the step's the executor's), numbers compared as written.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&x) == nil && db.Decode(&y) == nil && reflect.DeepEqual(x, y)
}
