package jobs

// Submissions that start their app's flow and arrive together are written together: one transaction
// for all of them, whose executions' rows, tasks and first attempts are one statement
// (run.Engine.CreateMany) and whose jobs, histories, usage records and credit are another, while the
// organizations' balances are comfortable. Each execution's first steps are recorded in the same
// transaction, one execution after another, as a start alone records them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// startLanes and startBatch bound the batches: at most startLanes transactions at a time, each of at
// most startBatch submissions. A batch's transaction is about ten statements, one after another, and
// its commit, during which its lane waits: more lanes than plain submissions' keep both cores busy.
// In BenchmarkJobsOnFlows (16 clients, 2 cores) one, two and three lanes were within the machine's noise
// of each other (1,050-1,413 submissions/s); fewer lanes make larger batches, more lanes keep a slow
// batch from holding the others.
const startLanes, startBatch = 3, 16

// errRefused sends a batch back to the careful path, a submission at a time: an organization's balance
// would not stay comfortable, or a flow's jobs run another version now than the one cached.
var errRefused = errors.New("jobs: a balance in the batch is not comfortable, or a flow's version changed")

// starting is one submission waiting to start its flow with others.
type starting struct {
	ctx    context.Context
	g      *access.Grant
	p      *auth.Principal
	sub    submission
	number int
	out    *v1api.JobSubmitted
	err    error
	done   chan struct{}
}

// submitStarted starts the execution of a job to an app bound to a flow and writes the job, as
// startAlone does, with the other such submissions that arrive meanwhile.
func (s *Service) submitStarted(ctx context.Context, g *access.Grant, p *auth.Principal, sub submission, number int, out *v1api.JobSubmitted) error {
	if !together(sub) {
		return s.startAlone(ctx, g, p, sub, number, out)
	}
	item := &starting{ctx: ctx, g: g, p: p, sub: sub, number: number, out: out, done: make(chan struct{})}
	s.starting.Add(item)
	<-item.done
	return item.err
}

// together says whether a submission is started with others: one whose input and metadata pass
// paidAlone is started alone, so that a batch's documents stay within startBatch × paidAlone bytes.
func together(sub submission) bool { return len(sub.input)+len(sub.metadata) <= paidAlone }

// startAlone starts one submission's execution and writes its job in a transaction of its own.
func (s *Service) startAlone(ctx context.Context, g *access.Grant, p *auth.Principal, sub submission, number int, out *v1api.JobSubmitted) error {
	var started *run.Started
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var err error
		started, err = s.startJob(ctx, tx, g, p, sub, number, out)
		return err
	})
	if err != nil {
		started.Drop()
		return err
	}
	started.Run()
	return nil
}

// writeStarted writes a batch and answers each of its submissions. A batch that fails is written again
// a submission at a time, on the careful path, so that one that cannot start does not fail the others and
// each gets its own answer (a balance near its end, a flow without a version that can run).
func (s *Service) writeStarted(batch []*starting) {
	defer func() {
		// A lane is no request's goroutine: what would have been a request's 500 is each one's error.
		r := recover()
		for _, b := range batch {
			if r != nil && b.err == nil {
				b.err = fmt.Errorf("jobs: starting a batch of submissions: %v", r)
			}
			close(b.done)
		}
	}()
	// A batch of one goes this way too: its statements are fewer than a start's alone (see
	// run.Engine.CreateMany). The transaction writes for many requests: one that is given up does not
	// cancel the others'.
	ctx := batch[0].ctx
	if len(batch) > 1 {
		ctx = context.WithoutCancel(ctx)
	}
	var sts []*run.Started
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var err error
		sts, err = s.startBatch(ctx, tx, batch)
		return err
	})
	for _, st := range sts {
		if err != nil {
			st.Drop()
		} else {
			st.Run()
		}
	}
	if err == nil {
		return
	}
	for _, b := range batch {
		b.err = s.startAgain(b)
	}
}

// startBatch starts the batch's executions and writes their jobs in tx, as startJob does for one: the
// jobs' ids first, for the executions to name them; the jobs last, where their executions stand.
func (s *Service) startBatch(ctx context.Context, tx *sqlx.Tx, batch []*starting) ([]*run.Started, error) {
	var ids []int64
	if err := tx.SelectContext(ctx, &ids, `SELECT nextval(pg_get_serial_sequence('jobs', 'id')) FROM generate_series(1, $1),
		(SELECT set_config('loopwork.jobs_follow', 'off', true)) AS off`, len(batch)); err != nil {
		return nil, err
	}
	ns := make([]run.NewExecution, len(batch))
	for i, b := range batch {
		ns[i] = run.NewExecution{ID: *b.sub.execution, Org: b.g.App.OrganizationID, Flow: *b.g.App.APIID, Version: b.sub.version,
			Input: []byte(b.sub.input), CreatedBy: authorID(b.p), Actor: b.p.Actor(), JobApp: &b.g.App.ID, Job: &ids[i],
			RunNumber: b.number, Pre: b.sub.pre}
		b.out.FlowExecutionId = b.sub.execution
	}
	sts, err := s.d.Engine.CreateMany(ctx, tx, ns)
	if err != nil {
		return sts, err
	}
	ended, err := insertStartedBatch(ctx, tx, batch, ids)
	if err != nil || len(ended) == 0 {
		return sts, err
	}
	_, err = tx.ExecContext(ctx, `SELECT job_follow(x) FROM flow_executions x WHERE x.id = ANY($1::uuid[])`, pq.Array(ended))
	return sts, err
}

// startAgain starts a submission of a batch that failed alone, on the careful path, with its flow's
// version read anew: the one it took from the cache may be what failed the batch, and its first tasks
// are then run ahead again, on the version it now runs.
func (s *Service) startAgain(b *starting) error {
	v, ok, err := executions.JobVersion(b.ctx, s.d.DB, *b.g.App.APIID)
	if err != nil {
		return err
	}
	if !ok {
		s.versions.Delete(*b.g.App.APIID)
		v = 0 // the start reports that the flow has no version that can run
	}
	if v != b.sub.version {
		if b.sub.version, b.sub.pre, err = s.prepare(b.ctx, b.g, b.sub, false); err != nil {
			return err
		}
	}
	return s.startAlone(b.ctx, b.g, b.p, b.sub, b.number, b.out)
}
