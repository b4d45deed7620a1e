// Package run is the engine's scheduler: it starts executions, runs each ready task's attempt as a
// River job, and records every outcome in one transaction with what it causes — the attempt's result,
// the successors that become ready (their jobs inserted in that transaction), the execution's status,
// and the completion of the job itself. Joins are counters on execution_tasks, so finishing a task
// touches its successors' rows only, never a scan of the execution.
//
// Edge conditions are tenants' jq programs, and none runs while a transaction of the engine's is open:
// an attempt's edges are decided from its output before the transaction that records it (see finish;
// an executor's InTx therefore cannot change the output), and what arrives inside a caller's transaction
// — an outcome reported through Report, the kept results a Rerun starts from — leaves its conditional
// edges to a job queued in that transaction, which decides them once it has committed and applies them
// in a transaction of its own (see resumeLater and rerunEdgesArgs).
//
// Executors are shared fairly between organizations (see Engine.running): one organization's attempts
// hold at most Deps.WorkersPerOrg of them, and a freed one goes to the organization with waiting work
// that holds the fewest. An attempt never waits for its turn in River's worker, whose slots every
// organization's jobs need to be fetched at all: it waits in process under its lease (see local), or,
// when its organization already has its share of waiting attempts here, its job is snoozed.
package run

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/fairshare"
	"github.com/loopwork/loopwork/internal/queue"
)

// External is the task type outside workers run: its attempts are claimed, not run by the engine.
const External = "external"

// DefaultTimeout bounds one attempt of a task whose definition sets no timeout_seconds.
const DefaultTimeout = 5 * time.Minute

// Deps are what the engine needs.
type Deps struct {
	DB *sqlx.DB
	// Numbers is a small pool of its own for run numbers taken during a start's transaction (see
	// RunNumber; nil: such starts take theirs in the transaction).
	Numbers   *sqlx.DB
	Registry  *tasks.Registry
	Executors executors.Set
	Logger    *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Lease is how long a running attempt stays claimed without a heartbeat (0: DefaultLease).
	Lease time.Duration
	// Workers is how many executors run at once in this process (0: DefaultWorkers).
	Workers int
	// WorkersPerOrg is how many of them one organization's attempts may hold (0: half of Workers, at
	// least one), so that another organization's work always finds executors free.
	WorkersPerOrg int
	// Tracer starts the span of each attempt (nil: none are recorded).
	Tracer trace.TracerProvider
	// JQ evaluates edge conditions, each within EdgeTime (nil: jqrun.Shared; 0: DefaultEdgeTime).
	JQ       *jqrun.Pool
	EdgeTime time.Duration
}

// DefaultWorkers is how many executors run at once unless Deps.Workers says otherwise.
const DefaultWorkers = 32

// DefaultLease is the lease of running attempts unless Deps.Lease says otherwise.
const DefaultLease = 30 * time.Second

// Engine runs flow executions.
type Engine struct {
	db *sqlx.DB
	// numbers is Deps.Numbers.
	numbers *sqlx.DB
	reg     *tasks.Registry
	execs   executors.Set
	log     *slog.Logger
	now     func() time.Time
	lease   time.Duration
	queue   *queue.Client
	tracer  trace.Tracer
	jq      edgeJQ
	local   *local
	groups  groups
	beside  beside
	// chainRounds counts the rounds written in one call (recordChainRound); the tests read it, and set
	// chainInTx to write them in transactions, as rounds the call does not apply to are.
	chainRounds atomic.Int64
	chainInTx   bool
	// running holds a place for each executor running in this process, River's and local alike, shared
	// fairly between organizations (see fairshare).
	running *fairshare.Semaphore[uuid.UUID]
	// aheadBudget is aheadFor; tests that count transactions lift it, so that a busy machine does not
	// cut their rounds short.
	aheadBudget time.Duration
	// onEnd is told of each execution that completes or fails, in the transaction that ends it.
	onEnd func(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error
	// ttl is the sweep of executions past their time to live, woken by each execution that ends here.
	ttl *queue.Sweep

	// maxVars bounds each attempt's variables (MaxVars; tests lower it).
	maxVars int

	mu    sync.Mutex
	plans map[planKey]*plan
}

// New returns an engine; Register its worker before the queue is built, then hand it the queue.
func New(d Deps) *Engine {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	workers := d.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	perOrg := d.WorkersPerOrg
	if perOrg <= 0 {
		perOrg = max(workers/2, 1)
	}
	lease := d.Lease
	if lease <= 0 {
		lease = DefaultLease
	}
	tp := d.Tracer
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	e := &Engine{db: d.DB, numbers: d.Numbers, reg: d.Registry, execs: d.Executors, log: d.Logger, now: now, lease: lease, plans: map[planKey]*plan{}, local: newLocal(), running: fairshare.New[uuid.UUID](workers, perOrg),
		tracer: tp.Tracer(tracerName), jq: edgeJQ{pool: d.JQ, limit: d.EdgeTime},
		groups: groups{by: map[uuid.UUID][]*completion{}, running: map[uuid.UUID]int{}}, maxVars: MaxVars,
		beside:      beside{by: map[uuid.UUID]*besideRun{}},
		aheadBudget: aheadFor}
	e.ttl = e.ttlSweep()
	return e
}

// Register adds the engine's workers.
func (e *Engine) Register(w *river.Workers) {
	river.AddWorker(w, &taskWorker{e: e})
	river.AddWorker(w, &sweepWorker{e: e})
	river.AddWorker(w, &rerunEdgesWorker{e: e})
}

// OnEnd sets the hook told of each execution the engine completes or fails, in the transaction that
// ends it (the /v1 half admits the next jobs of an app with it).
func (e *Engine) OnEnd(f func(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error) { e.onEnd = f }

// ended tells the hook, if any, that exec ended in tx.
func (e *Engine) ended(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error {
	// An execution that ends may have a time to live: the sweep, which waits long when it finds nothing,
	// comes back to its busy pace (an execution run wholly in process inserts no job it would hear of).
	e.ttl.Wake()
	if e.onEnd == nil {
		return nil
	}
	return e.onEnd(ctx, tx, exec)
}

// SetQueue gives the engine the queue its jobs go to.
func (e *Engine) SetQueue(q *queue.Client) { e.queue = q }

type planKey struct {
	flow    uuid.UUID
	version int
}

// maxPlans bounds the plans kept in memory; versions never change, so a plan is only ever dropped.
const maxPlans = 512

// plan reads (once per process) and compiles the definition of a flow version.
func (e *Engine) plan(ctx context.Context, db dbx.DBTX, flow uuid.UUID, version int) (*plan, error) {
	k := planKey{flow, version}
	e.mu.Lock()
	p := e.plans[k]
	e.mu.Unlock()
	if p != nil {
		return p, nil
	}
	var raw []byte
	if err := db.GetContext(ctx, &raw, `SELECT definition FROM flow_versions WHERE flow_id = $1 AND version = $2`, flow, version); err != nil {
		return nil, fmt.Errorf("flow %s version %d: %w", flow, version, err)
	}
	var def map[string]any
	if err := json.Unmarshal(raw, &def); err != nil {
		return nil, err
	}
	p, err := compile(def, e.reg)
	if err != nil {
		return nil, fmt.Errorf("flow %s version %d: %w", flow, version, err)
	}
	p.key = k
	e.mu.Lock()
	if len(e.plans) >= maxPlans {
		e.plans = map[planKey]*plan{}
	}
	e.plans[k] = p
	e.mu.Unlock()
	return p, nil
}
