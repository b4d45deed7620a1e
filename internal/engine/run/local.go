package run

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
)

// LocalSlots is how many attempts a process holds at once outside River: the successors its own
// outcomes make ready and the attempts River handed it that wait for an executor (Deps.Workers bound
// those running). One organization holds at most localShare of them; an organization that holds none
// may take one even when all are taken, so that every organization with ready work has an attempt in
// the executors' fair queue (see Engine.running). Beyond that, ready attempts go to River like any
// other, for any replica to take.
const LocalSlots = 512

// localShare is how many of LocalSlots one organization may hold.
const localShare = LocalSlots / 2

// Successors made ready by an attempt this process just finished are run here, at once, instead of
// through a River job: the transaction that makes one ready writes its attempt as running under this
// process's lease, and the process starts it as soon as that transaction commits. That spares each
// step a job insert, a fetch, a claim and two job completions, and no poll stands between a task and
// the next. The lease is the durable backstop: if the process dies first, the attempt's lease runs out
// and SweepLost hands it to River, as it does for any attempt whose process died.
type local struct {
	wg sync.WaitGroup

	mu      sync.Mutex
	held    int
	by      map[uuid.UUID]int
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	started bool
}

func newLocal() *local {
	ctx, cancel := context.WithCancel(context.Background())
	return &local{by: map[uuid.UUID]int{}, ctx: ctx, cancel: cancel}
}

// take reserves a slot for an attempt of org, or reports false when the organization's share or all
// slots are taken or the process is shutting down (or its queue has not started: before then nothing
// would run it).
func (l *local) take(org uuid.UUID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || !l.started {
		return false
	}
	n := l.by[org]
	if n > 0 && (l.held >= LocalSlots || n >= localShare) {
		return false
	}
	l.held++
	l.by[org] = n + 1
	l.wg.Add(1)
	return true
}

func (l *local) release(org uuid.UUID) {
	l.mu.Lock()
	l.held--
	if l.by[org]--; l.by[org] <= 0 {
		delete(l.by, org)
	}
	l.mu.Unlock()
	l.wg.Done()
}

// localRun is an attempt a transaction wrote as running for this process, with what running it needs
// and the span context of the transaction's caller, whose trace the attempt continues (see span.go).
type localRun struct {
	args taskArgs
	claimed
	parent trace.SpanContext
}

// batch collects the attempts one transaction claims for this process; run starts them once it has
// committed, drop gives their slots back when it has not.
type batch struct {
	flow    uuid.UUID
	version int
	runs    []localRun
	// starts marks the first tasks of a new execution (see StartHere): the execution is still queued,
	// and the first of them to run moves it to running, as a claim through River does.
	starts bool
}

func (b *batch) drop(e *Engine) {
	if b == nil {
		return
	}
	for _, r := range b.runs {
		e.local.release(r.org)
	}
	b.runs = nil
}

func (b *batch) run(e *Engine) {
	if b == nil {
		return
	}
	for _, r := range b.runs {
		e.runLocal(r, b.starts)
	}
	b.runs = nil
}

// runLocal runs an attempt claimed for this process, waiting for an executor if need be, and gives
// its slot back when done. starts marks a first task of a new execution (see batch).
func (e *Engine) runLocal(r localRun, starts bool) {
	ctx := e.local.ctx
	if r.parent.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, r.parent)
	}
	ctx = e.groups.dispatched(ctx, r.args.Execution)
	go func() {
		defer e.local.release(r.org)
		defer e.groups.arrived(ctx, r.args.Execution)
		var begin *time.Timer
		if starts {
			exec := r.args.Execution
			begin = time.AfterFunc(beginAfter, func() { e.begin(ctx, exec) })
		}
		err := e.execute(ctx, nil, r.args, r.claimed, false)
		if begin != nil {
			begin.Stop()
		}
		if err != nil && e.log != nil && e.local.ctx.Err() == nil {
			// The attempt stays running until its lease ends; SweepLost then runs it again.
			e.log.Warn("an attempt run in process failed to finish; its lease will bring it back",
				"execution", r.args.Execution, "task", r.args.Task, "error", err)
		}
	}()
}

// beginAfter is how long a first task run here may take before it moves its queued execution to
// running in a statement of its own. A quicker one leaves that to the transaction that records its
// outcome (see markRunning and settle): one transaction fewer for most executions, and the execution
// (and its job) still passes through running.
const beginAfter = 20 * time.Millisecond

// begin moves a new execution from queued to running while its first task runs here (a stop that came
// first leaves it alone, and the attempt's outcome then finds it stopped).
func (e *Engine) begin(ctx context.Context, exec uuid.UUID) {
	_, err := e.db.ExecContext(ctx, `UPDATE flow_executions SET status = 'running', started_at = now(), updated_at = now()
		WHERE id = $1 AND status = 'queued'`, exec)
	if err != nil && e.log != nil && ctx.Err() == nil {
		e.log.Warn("marking an execution running failed; its first outcome will", "execution", exec, "error", err)
	}
}

// StartLocal lets the engine run successors in process; the server calls it once its queue runs.
func (e *Engine) StartLocal() {
	e.local.mu.Lock()
	e.local.started = true
	e.local.mu.Unlock()
}

// Drain stops running successors in process (new ones go to River) and waits up to grace for those
// running to finish; what is cut off keeps its lease and is run again after it by SweepLost.
func (e *Engine) Drain(grace time.Duration) {
	e.local.mu.Lock()
	e.local.closed = true
	e.local.mu.Unlock()
	done := make(chan struct{})
	go func() { e.local.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		e.local.cancel()
		<-done
	}
}
