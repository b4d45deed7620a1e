package run

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
)

const reshapeThenReview = `{"version": 1, "tasks": [
	{"name": "prepare", "type": "transform", "parameters": {"expression": "."}},
	{"name": "check", "type": "human_review"},
	{"name": "finish", "type": "transform", "parameters": {"expression": "."}}],
	"edges": [{"source": "prepare", "target": "check"}, {"source": "check", "target": "finish"}]}`

// inlineHarness is a harness whose transform computes (it may run ahead of a start) and whose
// human_review only records (it may run inside the start's transaction), as the product's are; its
// queue's places here are open, so a start claims the attempts it makes ready.
func inlineHarness(t *testing.T, f *fakes) *harness {
	fn := executors.Func(f.run)
	h := newHarness(t, executors.Set{"transform": executors.Mark(fn, executors.Computes),
		"condition": executors.Mark(fn, executors.Computes), "human_review": executors.Mark(fn, executors.Records)})
	h.e.StartLocal()
	return h
}

// startPrepared starts an execution as /v1 does: its first tasks run ahead, then one transaction.
func (h *harness) startPrepared(flow uuid.UUID, input string) uuid.UUID {
	h.t.Helper()
	ctx := context.Background()
	x := Execution{ID: uuid.New(), Org: h.org, Flow: flow, Version: 1, Input: json.RawMessage(input)}
	pre := h.e.Prepare(ctx, x)
	var st *Started
	err := dbx.WithTx(ctx, h.db, func(tx *sqlx.Tx) error {
		var id uuid.UUID
		var err error
		_, st, err = h.e.Create(ctx, tx, NewExecution{ID: x.ID, Org: h.org, Flow: flow, Version: 1, Input: x.Input,
			Actor: "test", Pre: pre}, Into{Columns: "x.id", Dest: &id})
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	st.Run()
	return x.ID
}

// TestStartRunsFirstStepsInItsTransaction: a flow that reshapes its input and waits for a person is
// waiting for that person when its start commits, its first task completed with its output and its
// review parked, with nothing queued and nothing left to run here.
func TestStartRunsFirstStepsInItsTransaction(t *testing.T) {
	f := newFakes()
	f.out["prepare"] = map[string]any{"text": "hello"}
	f.park["check"] = true
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(reshapeThenReview), `{"text": "hello", "extra": 1}`)
	if got := h.status(exec); got != "awaiting_input" {
		t.Fatalf("execution %s when the start committed, want awaiting_input", got)
	}
	if got := h.states(exec); got["prepare"] != "completed" || got["check"] != "ready" || got["finish"] != "waiting" {
		t.Fatalf("tasks %v", got)
	}
	var out string
	if err := h.db.Get(&out, `SELECT output::text FROM task_executions WHERE flow_execution_id = $1 AND task_name = 'prepare'`, exec); err != nil {
		t.Fatal(err)
	}
	if out != `{"text": "hello"}` {
		t.Fatalf("prepare's output %s", out)
	}
	var parked bool
	if err := h.db.Get(&parked, `SELECT status = 'running' AND timeout_at IS NULL FROM task_executions
		WHERE flow_execution_id = $1 AND task_name = 'check'`, exec); err != nil || !parked {
		t.Fatalf("check's attempt is not parked (%v)", err)
	}
	if h.step() {
		t.Fatal("a job was queued for a start that ran its first steps")
	}
	if f.ran("prepare") != 1 || f.ran("check") != 1 {
		t.Fatalf("prepare ran %d times, check %d", f.ran("prepare"), f.ran("check"))
	}
	// The review finishes the attempt as it does for any parked one, and the flow goes on.
	if err := dbx.WithTx(context.Background(), h.db, func(tx *sqlx.Tx) error {
		return h.e.Report(context.Background(), tx, AttemptKey{Execution: exec, Task: "check"}, json.RawMessage(`{"label": "x"}`), nil)
	}); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if got := h.status(exec); got != "completed" {
		t.Fatalf("execution %s after the review, want completed", got)
	}
}

// TestStartLeavesFailuresToTheWorkers: a first task that fails ahead of the start is left to run as
// usual after it, with its retries; nothing of the failure is recorded by the start.
func TestStartLeavesFailuresToTheWorkers(t *testing.T) {
	f := newFakes()
	f.fail["prepare"] = errBoom
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(reshapeThenReview), `{}`)
	// Its second run is this process's, once the start has committed.
	for deadline := time.Now().Add(10 * time.Second); h.status(exec) != "failed"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("execution %s, want failed", h.status(exec))
		}
	}
	if f.ran("prepare") != 2 {
		t.Fatalf("prepare ran %d times, want 2: once ahead, once after the start", f.ran("prepare"))
	}
}
