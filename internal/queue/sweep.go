package queue

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Sweep is background work of the leader replica that looks for what no event announced: attempts
// whose worker died, deadlines that passed, files to remove. It used to be a River periodic job at a
// fixed interval, which made an idle server insert, fetch and complete a job every few seconds per
// sweep whether or not there was anything to find. A Sweep instead runs in the leader's process (see
// Sweeps) and paces itself:
//
//   - after a run that found work, the next comes after Every, as before;
//   - after a run that found nothing, the wait doubles, from Every up to Idle;
//   - it never waits past the earliest deadline the run saw (Outcome.Next), so work it knows of is
//     handled when it falls due, and usually sooner than a fixed interval would;
//   - Wake (an event that creates work for it, in this process) and activity anywhere (an insert
//     notification heard, see listeningDriver) bring the next run to within Every and start the
//     doubling over.
//
// Idle bounds how late a sweep notices work it was not told of (written by another replica without a
// job insert); each sweep's Idle says why its value is safe. A new leader runs every sweep at once and
// then waits as if idle: it knows nothing of recent activity, and the first run finds what is due.
type Sweep struct {
	// Name labels the sweep in logs.
	Name string
	// Every is the interval while there is work about, Idle the longest wait without any.
	Every, Idle time.Duration
	// Run sweeps once.
	Run func(ctx context.Context) (Outcome, error)

	once sync.Once
	wake chan struct{}
}

// Outcome is what a run of a sweep saw.
type Outcome struct {
	// Found reports work done: there may be more, so the sweep comes back after Every.
	Found bool
	// Next is when the earliest work the run saw but left (not due yet) falls due; zero for none.
	Next time.Time
}

// Due is the Outcome of a run that did no work yet and saw work falling due at the given times (nil:
// none): Next is the earliest of them.
func Due(at ...*time.Time) Outcome {
	var o Outcome
	for _, t := range at {
		if t != nil && (o.Next.IsZero() || t.Before(o.Next)) {
			o.Next = *t
		}
	}
	return o
}

func (s *Sweep) wakeC() chan struct{} {
	s.once.Do(func() { s.wake = make(chan struct{}, 1) })
	return s.wake
}

// Wake tells the sweep that work for it may have been written; it runs within Every. It never blocks,
// so it may be called on a request's path.
func (s *Sweep) Wake() {
	if s == nil {
		return
	}
	select {
	case s.wakeC() <- struct{}{}:
	default:
	}
}

// pacer decides when a sweep runs next; it is the sweep loop without its clock and its database.
type pacer struct {
	every, idle time.Duration
	backoff     time.Duration
	last        time.Time
}

// minWait keeps a sweep that sees a deadline just passed (a lease that ran out between its statements)
// from running in a tight loop.
const minWait = 50 * time.Millisecond

func newPacer(every, idle time.Duration) *pacer {
	return &pacer{every: every, idle: max(idle, every), backoff: max(idle, every)}
}

// ran records a run that ended at now and returns the wait until the next.
func (p *pacer) ran(now time.Time, o Outcome, err error) time.Duration {
	p.last = now
	wait := p.backoff
	switch {
	case err != nil || o.Found:
		p.backoff, wait = p.every, p.every
	default:
		p.backoff = min(2*p.backoff, p.idle)
	}
	if !o.Next.IsZero() {
		wait = min(wait, o.Next.Sub(now))
	}
	return max(wait, minWait)
}

// woken records a wake-up at now, with wait left until the planned run, and returns the new wait.
func (p *pacer) woken(now time.Time, wait time.Duration) time.Duration {
	p.backoff = p.every
	return max(min(wait, p.last.Add(p.every).Sub(now)), 0)
}

// loop runs s until ctx ends: at once, then as the pacer says. The first run holds first, which the
// loops of one leadership share: run one after another, the first runs take one pooled connection
// rather than one each (a new connection is a transaction too).
func (s *Sweep) loop(ctx context.Context, log *slog.Logger, first *sync.Mutex) {
	p := newPacer(s.Every, s.Idle)
	t := time.NewTimer(0)
	defer t.Stop()
	due := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wakeC():
			now := time.Now()
			due = now.Add(p.woken(now, due.Sub(now)))
			t.Reset(due.Sub(now))
			continue
		case <-t.C:
		}
		if first != nil {
			first.Lock()
		}
		o, err := s.Run(ctx)
		if first != nil {
			first.Unlock()
			first = nil
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && log != nil {
			log.Warn("sweep failed; it runs again shortly", "sweep", s.Name, "error", err.Error())
		}
		now := time.Now()
		due = now.Add(p.ran(now, o, err))
		t.Reset(due.Sub(now))
	}
}

// Sweeps runs a set of sweeps on whichever replica River elects leader, for as long as it leads. River
// calls its hook when its periodic job enqueuer starts on a newly elected leader, with a context that
// ends when leadership does (or the client stops).
type Sweeps struct {
	river.HookDefaults
	list []*Sweep
	log  *slog.Logger
	wg   sync.WaitGroup
}

var _ rivertype.HookPeriodicJobsStart = (*Sweeps)(nil)

// NewSweeps returns the runner of list, for Options.Sweeps.
func NewSweeps(log *slog.Logger, list ...*Sweep) *Sweeps {
	return &Sweeps{list: list, log: log}
}

// Start starts the loops of a newly elected leader (River's HookPeriodicJobsStart).
func (s *Sweeps) Start(ctx context.Context, _ *rivertype.HookPeriodicJobsStartParams) error {
	var first sync.Mutex
	for _, sw := range s.list {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			sw.loop(ctx, s.log, &first)
		}()
	}
	return nil
}

// activity wakes every sweep: an insert notification was heard, so work is about.
func (s *Sweeps) activity() {
	if s == nil {
		return
	}
	for _, sw := range s.list {
		sw.Wake()
	}
}

// Wait waits for the loops to return once leadership has ended (the client stopped).
func (s *Sweeps) Wait() {
	if s != nil {
		s.wg.Wait()
	}
}
