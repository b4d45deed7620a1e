package run

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
)

// outsideThenReview starts with an outside worker's task: its first attempt is queued for a worker
// that claims it, with no job and nothing run here.
const outsideThenReview = `{"version": 1, "tasks": [
	{"name": "fetch", "type": "external", "parameters": {"queue": "ocr"}},
	{"name": "check", "type": "human_review"}],
	"edges": [{"source": "fetch", "target": "check"}]}`

// branches reshapes its input, then goes one of two ways by an edge condition (the other is skipped,
// and the skip reaches the task after it), joins, and reads a variable.
const branches = `{"version": 1, "tasks": [
	{"name": "prepare", "type": "transform", "parameters": {"expression": "."}},
	{"name": "yes", "type": "human_review"},
	{"name": "no", "type": "transform", "parameters": {"expression": "."}},
	{"name": "after_no", "type": "transform", "parameters": {"expression": "$input.text"}},
	{"name": "side", "type": "human_review"}],
	"edges": [{"source": "prepare", "target": "yes", "condition": ".go == true"},
		{"source": "prepare", "target": "no", "condition": ".go == false"},
		{"source": "no", "target": "after_no"}, {"source": "prepare", "target": "side"}]}`

// startMany starts an execution of version 1 of each flow with input in one transaction, as /v1 does for
// submissions that arrive together: first tasks run ahead, run numbers taken apart.
func (h *harness) startMany(flows []uuid.UUID, input string) ([]uuid.UUID, error) {
	h.t.Helper()
	ctx := context.Background()
	ns := make([]NewExecution, len(flows))
	ids := make([]uuid.UUID, len(flows))
	for i, f := range flows {
		ids[i] = uuid.New()
		x := Execution{ID: ids[i], Org: h.org, Flow: f, Version: 1, Input: json.RawMessage(input)}
		ns[i] = NewExecution{ID: x.ID, Org: h.org, Flow: f, Version: 1, Input: x.Input, Actor: "test", RunNumber: 100 + i,
			Pre: h.e.Prepare(ctx, x)}
	}
	var sts []*Started
	err := dbx.WithTx(ctx, h.db, func(tx *sqlx.Tx) error {
		var err error
		sts, err = h.e.CreateMany(ctx, tx, ns)
		return err
	})
	for _, st := range sts {
		if err != nil {
			st.Drop()
		} else {
			st.Run()
		}
	}
	return ids, err
}

// written is what a start left of an execution, apart from ids and times: its row, its tasks, its
// attempts and its River jobs.
func (h *harness) written(exec uuid.UUID) string {
	h.t.Helper()
	var s string
	if err := h.db.Get(&s, `SELECT concat_ws(' | ', x.status, x.tasks_left, x.input::text, x.modified_by, x.started_at IS NULL,
		(SELECT string_agg(concat_ws(':', k.task_name, k.state, k.waiting_on, k.held, k.attempts, k.output::text), ', '
			ORDER BY k.task_name) FROM execution_tasks k WHERE k.flow_execution_id = x.id),
		(SELECT string_agg(concat_ws(':', t.task_name, t.task_execution_idx, t.status, t.input::text, t.vars::text,
			t.output::text, t.detail::text, t.timeout_at IS NULL, t.started_at IS NULL, t.completed_at IS NULL), ', '
			ORDER BY t.task_name, t.task_execution_idx) FROM task_executions t WHERE t.flow_execution_id = x.id),
		(SELECT string_agg(concat_ws(':', s.task_name, s.status, s.modified_by), ', ' ORDER BY s.task_name)
			FROM flow_task_statuses s WHERE s.flow_execution_id = x.id),
		(SELECT count(*) FROM river_job j WHERE j.args ->> 'execution' = x.id::text))
		FROM flow_executions x WHERE x.id = $1`, exec); err != nil {
		h.t.Fatal(err)
	}
	return s
}

// TestCreateManyWritesWhatCreateDoes: executions started together (in one statement for their rows,
// tasks and first attempts) are left exactly as each started alone is: one whose first task ran ahead
// and whose review parked in the start, and one whose first task waits for an outside worker, in one
// transaction; each with the run number it was given.
func TestCreateManyWritesWhatCreateDoes(t *testing.T) {
	f := newFakes()
	f.out["prepare"] = map[string]any{"text": "hello", "go": true}
	f.park["check"], f.park["yes"], f.park["side"] = true, true, true
	h := inlineHarness(t, f)
	reviewed, outside, branching := h.flow(reshapeThenReview), h.flow(outsideThenReview), h.flow(branches)
	input := `{"text": "hello", "extra": 1}`
	alone := []string{h.written(h.startPrepared(reviewed, input)), h.written(h.startPrepared(outside, input)),
		h.written(h.startPrepared(branching, input))}
	ids, err := h.startMany([]uuid.UUID{reviewed, outside, branching, reviewed}, input)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{alone[0], alone[1], alone[2], alone[0]} {
		if got := h.written(ids[i]); got != want {
			t.Errorf("execution %d started with others:\n  %s\nalone:\n  %s", i, got, want)
		}
		var number int
		if err := h.db.Get(&number, `SELECT run_number FROM flow_executions WHERE id = $1`, ids[i]); err != nil || number != 100+i {
			t.Errorf("execution %d: run number %d (%v), want %d", i, number, err, 100+i)
		}
	}
	if !strings.Contains(alone[2], "after_no:skipped") || !strings.Contains(alone[2], "no:skipped:system") {
		t.Fatalf("the branch not taken was not skipped: %s", alone[2])
	}
	if h.status(ids[0]) != "awaiting_input" || f.ran("check") != 3 {
		t.Fatalf("the reviewed flow is %s, its review ran %d times", h.status(ids[0]), f.ran("check"))
	}
	if h.step() {
		t.Fatal("a job was queued for starts that ran their first steps or wait for an outside worker")
	}
}

// TestCreateManyNeedsRunNumbers: an execution without a run number taken apart is not started with
// others (errNotMany: its caller starts it alone), nothing is written, and the places taken here for
// the others' first attempts are given back.
func TestCreateManyNeedsRunNumbers(t *testing.T) {
	h := inlineHarness(t, newFakes())
	flow := h.flow(reshapeThenReview)
	ctx := context.Background()
	err := dbx.WithTx(ctx, h.db, func(tx *sqlx.Tx) error {
		_, err := h.e.CreateMany(ctx, tx, []NewExecution{
			{ID: uuid.New(), Org: h.org, Flow: flow, Version: 1, Actor: "test", RunNumber: 1},
			{ID: uuid.New(), Org: h.org, Flow: flow, Version: 1, Actor: "test"}})
		return err
	})
	if !errors.Is(err, errNotMany) {
		t.Fatalf("got %v, want errNotMany", err)
	}
	var n int
	if err := h.db.Get(&n, `SELECT count(*) FROM flow_executions WHERE flow_id = $1`, flow); err != nil || n != 0 {
		t.Fatalf("%d executions written (%v)", n, err)
	}
	h.e.local.mu.Lock()
	held := h.e.local.held
	h.e.local.mu.Unlock()
	if held != 0 {
		t.Fatalf("%d places here still held", held)
	}
}

// TestWalkAheadInMemory: the outcome a first task ran ahead with is walked over the new execution's
// layout in memory (so CreateMany writes the rows as it leaves them, with no statement to record it),
// unless the walk would end the execution.
func TestWalkAheadInMemory(t *testing.T) {
	f := newFakes()
	f.out["prepare"] = map[string]any{"text": "hello"}
	h := inlineHarness(t, f)
	ctx := context.Background()
	for _, c := range []struct {
		def   string
		ready string // "": the walk is left to the database
	}{{reshapeThenReview, "check"}, {`{"version": 1, "tasks": [{"name": "prepare", "type": "transform",
		"parameters": {"expression": "."}}], "edges": []}`, ""}} {
		flow := h.flow(c.def)
		x := Execution{ID: uuid.New(), Org: h.org, Flow: flow, Version: 1, Input: json.RawMessage(`{}`)}
		x.Pre = h.e.Prepare(ctx, x)
		p, err := h.e.plan(ctx, h.db, flow, 1)
		if err != nil {
			t.Fatal(err)
		}
		l, err := lay(p, x)
		if err != nil {
			t.Fatal(err)
		}
		m, w, err := h.e.walkAhead(ctx, p, x, l)
		switch {
		case err != nil:
			t.Fatal(err)
		case c.ready == "" && m != nil:
			t.Fatal("a walk that ends the execution was taken in memory")
		case c.ready != "" && (m == nil || len(w.ready) != 1 || w.ready[0].task != c.ready || m.tasks["prepare"].state != "completed"):
			t.Fatalf("walk in memory %+v", m)
		}
	}
}

// TestStartedTogetherWriteTogether: the reviews of executions started together are written with one
// call of their executor's Together.Write; when it fails, the transaction returns to before them and each
// attempt runs as usual once the start commits, writing alone with its InTx, and parks.
func TestStartedTogetherWriteTogether(t *testing.T) {
	for _, fail := range []bool{false, true} {
		f := newFakes()
		f.out["prepare"] = map[string]any{"text": "hello"}
		var mu sync.Mutex
		var calls, items, alone int
		review := executors.Mark(executors.Func(func(_ context.Context, in executors.Input) (executors.Result, error) {
			return executors.Result{Park: true, AwaitingInput: true,
				InTx: func(context.Context, *sqlx.Tx) error { mu.Lock(); alone++; mu.Unlock(); return nil },
				Together: &executors.Together{Key: "reviews", Item: in.Execution, Write: func(_ context.Context, _ *sqlx.Tx, all []any) error {
					mu.Lock()
					calls, items = calls+1, items+len(all)
					mu.Unlock()
					if fail {
						return errBoom
					}
					return nil
				}}}, nil
		}), executors.Records)
		fn := executors.Func(f.run)
		h := newHarness(t, executors.Set{"transform": executors.Mark(fn, executors.Computes), "human_review": review})
		h.e.StartLocal()
		flow := h.flow(reshapeThenReview)
		ids, err := h.startMany([]uuid.UUID{flow, flow, flow}, `{"text": "hello"}`)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			for deadline := time.Now().Add(10 * time.Second); h.status(id) != "awaiting_input"; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("fail %v: execution %s, want awaiting_input", fail, h.status(id))
				}
			}
		}
		h.e.Drain(5 * time.Second)
		mu.Lock()
		if calls != 1 || items != 3 || (fail && alone != 3) || (!fail && alone != 0) {
			t.Fatalf("fail %v: Write called %d times with %d items, InTx %d times", fail, calls, items, alone)
		}
		mu.Unlock()
	}
}
