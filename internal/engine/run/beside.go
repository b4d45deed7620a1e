package run

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// While a round's transaction records the steps a completion ran ahead (stepsAhead), the steps after
// them run beside it: the task the transaction makes ready and claims here (the only successor of the
// last step), then the successors it alone makes ready in turn, as stepsAhead would run them once that
// task completes. A chain's round then takes its transaction's time, not its transaction's and then
// its programs'. An outcome run beside is only ever taken for the same task, run on the same input
// under the same version of the flow: by the attempt the transaction claimed (execute) and by the
// steps ahead of its completion (stepsAhead). A transaction that failed, or that left the execution
// otherwise, leaves them untaken; they are dropped, and the tasks run as they would have.

// maxBeside bounds the executions with steps run beside a transaction, and besideBytes the inputs and
// outputs their steps hold, all executions together: past either, no more run beside. besideFor is how
// long steps nobody took are kept (their attempt went to another process, say).
const (
	maxBeside   = 256
	besideBytes = 64 << 20
	besideFor   = 5 * time.Second
)

// beside holds, per execution, the steps run beside its round's transaction.
type beside struct {
	mu    sync.Mutex
	by    map[uuid.UUID]*besideRun
	bytes int // held by the runs' steps not taken yet
	// taken counts the outcomes taken (the engine's tests read it).
	taken atomic.Int64
}

// besideRun is the steps run beside one transaction, in their order, each sent as it completes;
// steps is closed when no more will come. held and dropped are guarded by beside.mu.
type besideRun struct {
	steps   chan stepAhead
	cancel  context.CancelFunc
	at      time.Time
	held    int
	dropped bool
}

// runBeside runs, beside the transaction of the round that ran steps ahead of attempt a up to task
// from (its outcome out and decision dec, on plan p), the steps after from: the one the transaction
// makes ready, then up to maxAhead more, within the budget of steps run ahead.
func (e *Engine) runBeside(p *plan, a taskArgs, from string, out json.RawMessage, dec *decision) {
	if _, ok := e.onlyNext(p, from, dec); !ok {
		e.dropBeside(a.Execution, nil)
		return
	}
	now := time.Now()
	ctx, cancel := context.WithCancel(e.local.ctx)
	r := &besideRun{steps: make(chan stepAhead, maxAhead+1), cancel: cancel, at: now}
	e.beside.mu.Lock()
	for x, old := range e.beside.by {
		if x == a.Execution || now.Sub(old.at) > besideFor {
			e.dropLocked(x, old)
		}
	}
	if len(e.beside.by) >= maxBeside {
		e.beside.mu.Unlock()
		cancel()
		return
	}
	e.beside.by[a.Execution] = r
	e.beside.mu.Unlock()
	go func() {
		defer close(r.steps)
		cur := from
		for n, began := 0, time.Now(); n < cap(r.steps) && time.Since(began) < e.aheadBudget; n++ {
			s, ok := e.stepAfter(ctx, p, a, cur, out, dec)
			if !ok || !e.holdBeside(r, s.size()) {
				return
			}
			r.steps <- s
			cur, out, dec = s.task, s.o.output, s.o.dec
		}
	}()
}

// size is what a step holds.
func (s stepAhead) size() int { return len(s.input) + len(s.o.output) + len(s.o.detail) }

// holdBeside counts n bytes of run r against besideBytes; false when they are spent or r was dropped.
func (e *Engine) holdBeside(r *besideRun, n int) bool {
	e.beside.mu.Lock()
	defer e.beside.mu.Unlock()
	if r.dropped || e.beside.bytes+n > besideBytes {
		return false
	}
	e.beside.bytes += n
	r.held += n
	return true
}

// takeBeside is the outcome of task on input under plan key run beside the execution's last round,
// waiting for it to complete; false when none was, or what was run next is another task or ran on
// another input, which drops the steps run beside.
func (e *Engine) takeBeside(exec uuid.UUID, task string, input json.RawMessage, key planKey) (stepAhead, bool) {
	e.beside.mu.Lock()
	r := e.beside.by[exec]
	e.beside.mu.Unlock()
	if r == nil {
		return stepAhead{}, false
	}
	s, ok := <-r.steps
	if ok && s.task == task && s.o.dec != nil && s.o.dec.key == key && sameJSON(s.input, input) {
		e.beside.mu.Lock()
		if !r.dropped {
			r.held -= s.size()
			e.beside.bytes -= s.size()
		}
		e.beside.mu.Unlock()
		e.beside.taken.Add(1)
		return s, true
	}
	e.dropBeside(exec, r)
	return stepAhead{}, false
}

// keepBeside keeps the steps run beside a round of exec only when its transaction claimed one of exec's
// attempts here (b): otherwise (the attempt was not running any more, the execution stopped, the claim
// went to River) none would take them.
func (e *Engine) keepBeside(exec uuid.UUID, b *batch) {
	for _, r := range b.runs {
		if r.args.Execution == exec {
			return
		}
	}
	e.dropBeside(exec, nil)
}

// dropBeside forgets the steps run beside the execution (those of run r, when r is not nil).
func (e *Engine) dropBeside(exec uuid.UUID, r *besideRun) {
	e.beside.mu.Lock()
	defer e.beside.mu.Unlock()
	if cur := e.beside.by[exec]; cur != nil && (r == nil || cur == r) {
		e.dropLocked(exec, cur)
	}
}

// dropLocked forgets run r of execution exec and what its steps hold; beside.mu is held.
func (e *Engine) dropLocked(exec uuid.UUID, r *besideRun) {
	r.cancel()
	r.dropped = true
	e.beside.bytes -= r.held
	r.held = 0
	delete(e.beside.by, exec)
}
