package run

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Completions of one execution that arrive while a transaction of its completions is under way wait
// for it and are then recorded together, in the next one: siblings of a fan-out, which would otherwise
// queue one by one on their join's counter and their execution's row, commit in a transaction or two
// instead of one each, and the walk's statements are per round, not per task. Completions reported from
// outside with writes of their own (reviews, ReportTogether) join the rounds the same way. A completion
// that finds no transaction under way starts one at once, so a lone task waits for nothing.
type groups struct {
	mu sync.Mutex
	// by holds, for each execution with a transaction under way, the completions waiting for the next.
	by map[uuid.UUID][]*completion
	// running counts, per execution, the attempts run in this process that have not reached their
	// outcome yet: a completion that finds its siblings still running waits a moment for them (see
	// gather), so that a fan-out's branches are recorded in one transaction.
	running map[uuid.UUID]int
}

// gatherFor is the longest a completion waits for the siblings running beside it; a chain, whose
// steps have none, never waits.
const gatherFor = 3 * time.Millisecond

// arrival marks, in the context of an attempt run in process, whether it has reached its outcome.
type arrival struct{ done bool }

type arrivalKey struct{}

// dispatched counts an attempt this process is about to run; the context it runs under records its
// arrival.
func (g *groups) dispatched(ctx context.Context, exec uuid.UUID) context.Context {
	g.mu.Lock()
	g.running[exec]++
	g.mu.Unlock()
	return context.WithValue(ctx, arrivalKey{}, &arrival{})
}

// arrivedLocked uncounts the attempt of ctx, once; g.mu must be held.
func (g *groups) arrivedLocked(ctx context.Context, exec uuid.UUID) {
	a, _ := ctx.Value(arrivalKey{}).(*arrival)
	if a == nil || a.done {
		return
	}
	a.done = true
	if g.running[exec]--; g.running[exec] <= 0 {
		delete(g.running, exec)
	}
}

// arrived uncounts the attempt of ctx if it has not arrived yet (it ended without a completion).
func (g *groups) arrived(ctx context.Context, exec uuid.UUID) {
	g.mu.Lock()
	g.arrivedLocked(ctx, exec)
	g.mu.Unlock()
}

// alone is whether no attempt of the execution but (at most) the caller's is running here.
func (g *groups) alone(exec uuid.UUID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running[exec] <= 1
}

// gather waits, for at most gatherFor, until no attempt of the execution is still running here.
func (g *groups) gather(exec uuid.UUID) {
	deadline := time.Now().Add(gatherFor)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		n := g.running[exec]
		g.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// completion is an attempt that completed with output, delivered by job (nil: run in process).
type completion struct {
	// ctx is the context of the attempt's own delivery: a River job is completed under it, as River finds
	// its client there (the first of a round, which records it, may be run in process, with none).
	ctx    context.Context
	job    *river.Job[taskArgs]
	args   taskArgs
	output json.RawMessage
	detail json.RawMessage // recorded on the attempt (nil: none)
	dec    *decision
	ahead  []stepAhead // the successors run ahead of its transaction (stepsAhead)
	// recorded counts the first of them, written as a line (advanceLine).
	recorded int
	// w writes item, in the round's transaction before the engine's statements, with the items of the
	// round's other completions handed over with the same Writer (ReportTogether; nil: nothing).
	w    Writer
	item any
	err  chan error
}

// finishCompleted records a completed attempt with the others of its execution that completed
// meanwhile. The first of them records, round after round, until none is waiting.
func (e *Engine) finishCompleted(ctx context.Context, job *river.Job[taskArgs], a taskArgs, output, detail json.RawMessage, dec *decision,
	ahead []stepAhead) error {
	c := &completion{ctx: ctx, job: job, args: a, output: output, detail: detail, dec: dec, ahead: ahead, err: make(chan error, 1)}
	return e.together(ctx, c)
}

// together records c with the others of its execution that arrive meanwhile (see groups).
func (e *Engine) together(ctx context.Context, c *completion) error {
	a := c.args
	e.groups.mu.Lock()
	e.groups.arrivedLocked(ctx, a.Execution)
	waiting, underWay := e.groups.by[a.Execution]
	e.groups.by[a.Execution] = append(waiting, c)
	e.groups.mu.Unlock()
	if underWay {
		select {
		case err := <-c.err:
			return err
		case <-ctx.Done():
			return ctx.Err() // it is recorded all the same; a repeated delivery finds it completed
		}
	}
	e.groups.gather(a.Execution)
	for {
		e.groups.mu.Lock()
		round := e.groups.by[a.Execution]
		if len(round) == 0 {
			delete(e.groups.by, a.Execution)
			e.groups.mu.Unlock()
			break
		}
		e.groups.by[a.Execution] = []*completion{}
		e.groups.mu.Unlock()
		if err := e.recordGroup(ctx, a.Execution, round); err != nil {
			// One of them may be what fails: each is recorded on its own instead, those with writes of
			// their own by their callers.
			for _, r := range round {
				if r.w != nil {
					r.err <- ErrAlone
					continue
				}
				r.err <- e.finishOne(r.ctx, r.job, r.args, outcome{output: r.output, detail: r.detail, dec: r.dec})
			}
			continue
		}
		for _, r := range round {
			r.err <- nil
		}
	}
	return <-c.err
}

// recordGroup records completed attempts of one execution in one transaction, with the completion of
// their jobs, and starts in process the successors it claimed once it commits.
func (e *Engine) recordGroup(ctx context.Context, exec uuid.UUID, round []*completion) error {
	draft := draftLine(round)
	if done, err := e.recordChainRound(ctx, exec, round, draft); done {
		return err
	}
	b := &batch{}
	err := dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
		if err := writeAlongside(ctx, tx, round); err != nil {
			return err
		}
		if err := e.completeGroup(ctx, tx, exec, round, draft, b); err != nil {
			return err
		}
		if err := e.recordSteps(ctx, tx, exec, round, b); err != nil {
			return err
		}
		for _, r := range round {
			if r.job != nil {
				if _, err := river.JobCompleteTx[*riverdatabasesql.Driver](r.ctx, tx.Tx, r.job); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.drop(e)
		e.dropBeside(exec, nil) // nothing was claimed, so no attempt takes the steps run beside the round
		return err
	}
	e.keepBeside(exec, b)
	b.run(e)
	return nil
}
