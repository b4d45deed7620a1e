package run

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/state/statetest"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/testkit/testdb"
)

// harness is an Engine on a test database with fake executors and no HTTP server. Its queue is never
// started, so nothing runs on its own: a test works the queued jobs one at a time (step, drain) and
// calls the sweeps itself, and so decides every interleaving. Every status change its rows see is
// checked against the state machines when the test ends (statetest).
type harness struct {
	t   *testing.T
	db  *sqlx.DB
	e   *Engine
	org uuid.UUID
	q   *queue.Client
}

// newHarness builds the engine with the given executors by task type; the types keep their schemas
// from the built-in registry, so definitions validate as they do in the product.
func newHarness(t *testing.T, execs executors.Set) *harness {
	t.Helper()
	db := testdb.DB(t)
	statetest.Record(t, db)
	e := New(Deps{DB: db, Registry: tasks.Builtin(), Executors: execs, Logger: slog.New(slog.DiscardHandler), Lease: time.Minute})
	workers := river.NewWorkers()
	e.Register(workers)
	q, err := queue.New(db.DB, testdb.DSN(t, db), workers, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.SetQueue(q)
	h := &harness{t: t, db: db, e: e, q: q}
	if err := db.Get(&h.org, `INSERT INTO organizations (name) VALUES ('engine') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	return h
}

// flow writes a flow with one valid version of the definition and returns its id.
func (h *harness) flow(def string) uuid.UUID {
	h.t.Helper()
	var id uuid.UUID
	if err := h.db.Get(&id, `WITH f AS (INSERT INTO flows (organization_id) VALUES ($1) RETURNING id)
		INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, valid)
		SELECT id, 1, $1, 'f', $2, true FROM f RETURNING flow_id`, h.org, def); err != nil {
		h.t.Fatal(err)
	}
	return id
}

// start creates an execution of version 1 of flow with input, as /api and /v1 do.
func (h *harness) start(flow uuid.UUID, input string) uuid.UUID {
	h.t.Helper()
	var id uuid.UUID
	var st *Started
	err := dbx.WithTx(context.Background(), h.db, func(tx *sqlx.Tx) error {
		var err error
		_, st, err = h.e.Create(context.Background(), tx, NewExecution{Org: h.org, Flow: flow, Version: 1,
			Input: json.RawMessage(input), Actor: "test"}, Into{Columns: "x.id", Dest: &id})
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	st.Run()
	return id
}

// job is a job of the engine's waiting in River's table.
type job struct {
	ID   int64           `db:"id"`
	Kind string          `db:"kind"`
	Args json.RawMessage `db:"args"`
}

// step works the oldest job that is due, as a River worker would, and reports whether there was one.
// It reads and moves River's rows directly: the queue is not started, so no one else does.
func (h *harness) step() bool {
	h.t.Helper()
	return h.stepWhere("true")
}

// stepTask works the due job of the named task's attempt, and reports whether there was one.
func (h *harness) stepTask(task string) bool {
	h.t.Helper()
	return h.stepWhere("args->>'task' = " + pq.QuoteLiteral(task))
}

func (h *harness) stepWhere(cond string) bool {
	h.t.Helper()
	// Workers complete their job in their own transaction, with the client River puts in the context.
	ctx := rivertest.WorkContext(context.Background(), h.q)
	var j job
	err := h.db.Get(&j, `UPDATE river_job SET state = 'running', attempt = attempt + 1, attempted_at = now()
		WHERE id = (SELECT id FROM river_job WHERE state IN ('available', 'scheduled', 'retryable')
			AND scheduled_at <= now() AND kind IN ('flow_task', 'flow_rerun_edges') AND `+cond+` ORDER BY id LIMIT 1)
		RETURNING id, kind, args`)
	if dbx.IsNoRows(err) {
		return false
	}
	if err != nil {
		h.t.Fatal(err)
	}
	row := &rivertype.JobRow{ID: j.ID, Kind: j.Kind, EncodedArgs: j.Args, State: rivertype.JobStateRunning, Attempt: 1}
	switch j.Kind {
	case "flow_task":
		var a taskArgs
		if err := json.Unmarshal(j.Args, &a); err != nil {
			h.t.Fatal(err)
		}
		err = (&taskWorker{e: h.e}).Work(ctx, &river.Job[taskArgs]{JobRow: row, Args: a})
	default:
		var a rerunEdgesArgs
		if err := json.Unmarshal(j.Args, &a); err != nil {
			h.t.Fatal(err)
		}
		err = (&rerunEdgesWorker{e: h.e}).Work(ctx, &river.Job[rerunEdgesArgs]{JobRow: row, Args: a})
	}
	h.settleJob(j.ID, err)
	return true
}

// settleJob does what River does with a job after its worker returned: a snooze or an error makes it
// due again (a test that wants the retry's backoff moves scheduled_at itself), and a job its worker did
// not complete in its own transaction is completed.
func (h *harness) settleJob(id int64, err error) {
	h.t.Helper()
	var snooze *river.JobSnoozeError
	state, q := "completed", `UPDATE river_job SET state = $2, finalized_at = now() WHERE id = $1 AND state = 'running'`
	switch {
	case errors.As(err, &snooze):
		state, q = "available", `UPDATE river_job SET state = $2 WHERE id = $1 AND state = 'running'`
	case err != nil:
		h.t.Logf("job %d failed and will be retried: %v", id, err)
		state, q = "retryable", `UPDATE river_job SET state = $2 WHERE id = $1 AND state = 'running'`
	}
	if _, err := h.db.Exec(q, id, state); err != nil {
		h.t.Fatal(err)
	}
}

// drain works due jobs until none is left, and returns how many it worked.
func (h *harness) drain() int {
	h.t.Helper()
	n := 0
	for h.step() {
		if n++; n > 1000 {
			h.t.Fatal("more than 1000 jobs: the engine is looping")
		}
	}
	return n
}

// status is an execution's status.
func (h *harness) status(exec uuid.UUID) string {
	h.t.Helper()
	var s string
	if err := h.db.Get(&s, `SELECT status FROM flow_executions WHERE id = $1`, exec); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// states are the states of an execution's tasks by name.
func (h *harness) states(exec uuid.UUID) map[string]string {
	h.t.Helper()
	var rows []struct {
		Name  string `db:"task_name"`
		State string `db:"state"`
	}
	if err := h.db.Select(&rows, `SELECT task_name, state FROM execution_tasks WHERE flow_execution_id = $1`, exec); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.Name] = r.State
	}
	return out
}
