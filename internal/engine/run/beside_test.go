package run

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// TestStepsRunBesideAreTaken: in a chain long enough for several rounds, the steps after each round run
// beside its transaction and are taken by the attempt it claims and the steps ahead of that attempt's
// completion: every task runs once and has one attempt, on the output of the one before.
func TestStepsRunBesideAreTaken(t *testing.T) {
	f := newFakes()
	h := inlineHarness(t, f)
	h.e.aheadBudget = time.Minute
	exec := h.startPrepared(h.flow(chainOf(30)), `{"n": 1}`)
	h.waitStatus(exec, "completed")
	for i := 1; i < 30; i++ {
		if n := f.ran(fmt.Sprintf("t%d", i)); n != 1 {
			t.Errorf("t%d ran %d times, want 1", i, n)
		}
	}
	if h.e.beside.taken.Load() < 9 {
		t.Errorf("%d outcomes run beside were taken, want at least a round's (9)", h.e.beside.taken.Load())
	}
	var attempts, onInput int
	if err := h.db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE input = '{"n": 1}' AND output = '{"n": 1}')
		FROM task_executions WHERE flow_execution_id = $1 AND status = 'completed'`, exec).Scan(&attempts, &onInput); err != nil {
		t.Fatal(err)
	}
	if attempts != 30 || onInput != 30 {
		t.Errorf("%d attempts, %d on the input handed on, want 30 each", attempts, onInput)
	}
	h.e.beside.mu.Lock()
	defer h.e.beside.mu.Unlock()
	if len(h.e.beside.by) != 0 || h.e.beside.bytes != 0 {
		t.Errorf("%d runs beside kept after the chain ended, holding %d bytes", len(h.e.beside.by), h.e.beside.bytes)
	}
}

// TestStepRunBesideOnOtherInputRunsAgain: the last step of a round outputs a number jsonb writes back
// otherwise, so the task after it is handed another text than it ran on beside: that outcome, and the
// steps run after it, are dropped and run again on what the database hands on.
func TestStepRunBesideOnOtherInputRunsAgain(t *testing.T) {
	f := newFakes()
	// t0 runs ahead of the start, which claims t1; t1's completion runs t2 … t9 ahead (maxAhead) and t10
	// … beside.
	f.out["t9"] = json.RawMessage(`{"n": 1.0e2}`)
	h := inlineHarness(t, f)
	h.e.aheadBudget = time.Minute
	exec := h.startPrepared(h.flow(chainOf(20)), `{}`)
	h.waitStatus(exec, "completed")
	for task, want := range map[string]int{"t1": 1, "t9": 1, "t10": 2, "t11": 2, "t19": 1} {
		if f.ran(task) != want {
			t.Errorf("%s ran %d times, want %d", task, f.ran(task), want)
		}
	}
	var inputs []string
	if err := h.db.Select(&inputs, `SELECT input::text FROM task_executions WHERE flow_execution_id = $1 AND task_name = 't10'`,
		exec); err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 1 || inputs[0] != `{"n": 100}` {
		t.Errorf("t10's attempts ran on %v, want one on {\"n\": 100}", inputs)
	}
}

// TestBesideHoldsWithinItsBytes: the steps run beside, all executions together, hold at most
// besideBytes; a dropped run gives back what it held and holds nothing more.
func TestBesideHoldsWithinItsBytes(t *testing.T) {
	h := newHarness(t, newFakes().set())
	exec := uuid.New()
	r := &besideRun{steps: make(chan stepAhead, 1), cancel: func() {}}
	h.e.beside.by[exec] = r
	if !h.e.holdBeside(r, besideBytes-10) || h.e.holdBeside(r, 11) || !h.e.holdBeside(r, 10) {
		t.Fatalf("held %d bytes of %d", h.e.beside.bytes, besideBytes)
	}
	h.e.dropBeside(exec, nil)
	if h.e.beside.bytes != 0 || h.e.holdBeside(r, 1) || len(h.e.beside.by) != 0 {
		t.Fatalf("after the drop: %d bytes held, %d runs", h.e.beside.bytes, len(h.e.beside.by))
	}
}

// TestRoundThatClaimsNothingDropsItsStepsBeside: a round whose attempt is not running any more claims
// nothing, so the steps run beside it, which nothing would take, are dropped with what they hold.
func TestRoundThatClaimsNothingDropsItsStepsBeside(t *testing.T) {
	h := newHarness(t, executors.Set{"transform": executors.Mark(executors.Func(newFakes().run), executors.Computes)})
	h.e.aheadBudget = time.Minute
	flow := h.flow(chainOf(12))
	exec := h.start(flow, `{"n": 1}`)
	for _, status := range []string{"running", "completed"} {
		if _, err := h.db.Exec(`UPDATE task_executions SET status = $2 WHERE flow_execution_id = $1`, exec, status); err != nil {
			t.Fatal(err)
		}
	}
	p, err := h.e.plan(context.Background(), h.db, flow, 1)
	if err != nil {
		t.Fatal(err)
	}
	held := &decision{key: p.key, held: []bool{true}}
	h.e.runBeside(p, taskArgs{Execution: exec, Task: "t0", Org: h.org}, "t0", json.RawMessage(`{"n": 1}`), held)
	round := []*completion{{args: taskArgs{Execution: exec, Task: "t0", Org: h.org}, output: json.RawMessage(`{"n": 1}`), dec: held}}
	h.e.beside.mu.Lock()
	ran := len(h.e.beside.by)
	h.e.beside.mu.Unlock()
	if ran != 1 {
		t.Fatalf("%d runs beside, want 1", ran)
	}
	if err := h.e.recordGroup(context.Background(), exec, round); err != nil {
		t.Fatal(err)
	}
	h.e.beside.mu.Lock()
	defer h.e.beside.mu.Unlock()
	if len(h.e.beside.by) != 0 || h.e.beside.bytes != 0 {
		t.Errorf("%d runs beside kept after a round that claimed nothing, holding %d bytes", len(h.e.beside.by), h.e.beside.bytes)
	}
}
