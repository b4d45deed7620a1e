package queue

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// listeningDriver is River's database/sql driver with a listener, which the database/sql driver lacks.
// With it River wakes a worker as soon as a transaction that inserted jobs commits (River sends
// pg_notify inside InsertTx) instead of at its next poll: the next task of a flow starts in
// milliseconds, not at the poll interval, and the poll itself can be rare (see pollInterval), because
// the listener also wakes the queues whenever a poll would have found something (see pgListener).
type listeningDriver struct {
	*riverdatabasesql.Driver
	db  *sql.DB
	dsn string
	// queues are the queues this client works, for the wake-ups the listener makes up.
	queues []string
	// heard is told of every insert notification, from this process or another (the sweeps' activity).
	heard func()

	mu       sync.Mutex
	listener *pgListener
}

func (d *listeningDriver) SupportsListener() bool { return true }

func (d *listeningDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	l := &pgListener{db: d.db, dsn: d.dsn, schema: params.Schema, queues: d.queues, heard: d.heard}
	d.mu.Lock()
	d.listener = l
	d.mu.Unlock()
	return l
}

// GetExecutor is the database/sql driver's executor, whose transactions tell the listener when the
// jobs River's scheduler makes available fall due (scheduledExecutor).
func (d *listeningDriver) GetExecutor() riverdriver.Executor {
	return &scheduledExecutor{Executor: d.Driver.GetExecutor(), d: d}
}

// UnwrapTx is the database/sql driver's, which takes only its own transactions.
func (d *listeningDriver) UnwrapTx(execTx riverdriver.ExecutorTx) *sql.Tx {
	if t, ok := execTx.(*scheduledTx); ok {
		execTx = t.ExecutorTx
	}
	return d.Driver.UnwrapTx(execTx)
}

// wakeAt has the listener wake queue at t (a no-op before River asked for one).
func (d *listeningDriver) wakeAt(queue string, t time.Time) {
	d.mu.Lock()
	l := d.listener
	d.mu.Unlock()
	if l != nil {
		l.wakeAt(queue, t)
	}
}

// scheduledExecutor passes everything on to River's executor, and tells the listener about the jobs
// River's scheduler (on the leader, every 5 s) moves to available ahead of their time. The scheduler
// notifies the queues only of jobs already due, and leaves the others to the workers' poll: a delay
// task's end, a retry after its backoff. The poll used to come every 250 ms; now the listener wakes the
// queue when such a job falls due instead. River's driver interfaces say they are not a stable API;
// the scheduler reaches JobSchedule through Begin, in a transaction of its own.
type scheduledExecutor struct {
	riverdriver.Executor
	d *listeningDriver
}

func (e *scheduledExecutor) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := e.Executor.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &scheduledTx{ExecutorTx: tx, d: e.d}, nil
}

type scheduledTx struct {
	riverdriver.ExecutorTx
	d *listeningDriver
}

func (t *scheduledTx) JobSchedule(ctx context.Context, params *riverdriver.JobScheduleParams) ([]*riverdriver.JobScheduleResult, error) {
	res, err := t.ExecutorTx.JobSchedule(ctx, params)
	now := time.Now()
	for _, r := range res {
		if !r.ConflictDiscarded && r.Job.ScheduledAt.After(now) {
			t.d.wakeAt(r.Job.Queue, r.Job.ScheduledAt)
		}
	}
	return res, err
}
