package run

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// chainOf is a definition of n transforms, t0 → t1 → … in a line.
func chainOf(n int) string {
	var tasks, edges []string
	for i := 0; i < n; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"name": "t%d", "type": "transform", "parameters": {"expression": "."}}`, i))
		if i > 0 {
			edges = append(edges, fmt.Sprintf(`{"source": "t%d", "target": "t%d"}`, i-1, i))
		}
	}
	return `{"version": 1, "tasks": [` + strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}`
}

// waitStatus waits until the execution is in status want.
func (h *harness) waitStatus(exec uuid.UUID, want string) {
	h.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); h.status(exec) != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.t.Fatalf("execution %s, want %s (tasks %v)", h.status(exec), want, h.states(exec))
		}
	}
}

// commits is how many transactions recorded the execution's completed attempts: those of one share its
// start time, which now() gives them all.
func (h *harness) commits(exec uuid.UUID) int {
	h.t.Helper()
	var n int
	if err := h.db.Get(&n, `SELECT count(DISTINCT completed_at) FROM task_executions
		WHERE flow_execution_id = $1 AND status = 'completed'`, exec); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// TestChainStepsRunAhead: a chain of transforms run in process commits once every few steps, not once a
// step: each completion runs the transforms after it ahead of its transaction, which records them all.
// Every task still runs once and leaves one completed attempt with its input and output.
func TestChainStepsRunAhead(t *testing.T) {
	const n = 20
	f := newFakes()
	f.out["t0"] = map[string]any{"n": 1}
	h := inlineHarness(t, f)
	h.e.aheadBudget = time.Minute
	exec := h.startPrepared(h.flow(chainOf(n)), `{}`)
	h.waitStatus(exec, "completed")
	var attempts []struct {
		Task   string `db:"task_name"`
		Input  string `db:"input"`
		Output string `db:"output"`
	}
	if err := h.db.Select(&attempts, `SELECT task_name, coalesce(input::text, '') AS input, output::text AS output
		FROM task_executions WHERE flow_execution_id = $1 AND status = 'completed' ORDER BY task_name`, exec); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != n {
		t.Fatalf("%d completed attempts, want %d", len(attempts), n)
	}
	for _, a := range attempts {
		if a.Output != `{"n": 1}` || (a.Task != "t0" && a.Input != `{"n": 1}`) {
			t.Fatalf("attempt of %s: input %s, output %s", a.Task, a.Input, a.Output)
		}
		if f.ran(a.Task) != 1 {
			t.Fatalf("%s ran %d times", a.Task, f.ran(a.Task))
		}
	}
	// The start records t0 and claims t1; t1's completion records it and the 8 (maxAhead) after it, and
	// so on: 4 transactions, where a transaction a step took 20.
	if got, most := h.commits(exec), 4; got > most {
		t.Fatalf("the chain's attempts were recorded by %d transactions, want at most %d", got, most)
	}
}

// TestStepAheadNeedsItsInput: a step run ahead whose input the transaction finds otherwise (here the
// database writes a number of its predecessor's output differently) is not recorded; it runs again
// after the commit, on the input the engine hands it.
func TestStepAheadNeedsItsInput(t *testing.T) {
	f := newFakes()
	f.out["t1"] = json.RawMessage(`{"n": 1.0e2}`)
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(chainOf(3)), `{}`)
	h.waitStatus(exec, "completed")
	if f.ran("t2") != 2 {
		t.Fatalf("t2 ran %d times, want 2: ahead on 1.0e2, then on the database's 100", f.ran("t2"))
	}
	var in string
	if err := h.db.Get(&in, `SELECT input::text FROM task_executions WHERE flow_execution_id = $1 AND task_name = 't2'`, exec); err != nil {
		t.Fatal(err)
	}
	if in != `{"n": 100}` {
		t.Fatalf("t2's input %s", in)
	}
}

// TestStepAheadFailureRunsAfter: a step that fails ahead is left to run after the transaction, with
// its retries: the failure is recorded once, by that run.
func TestStepAheadFailureRunsAfter(t *testing.T) {
	f := newFakes()
	f.fail["t2"] = errBoom
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(chainOf(4)), `{}`)
	h.waitStatus(exec, "failed")
	if f.ran("t2") != 2 || f.ran("t3") != 0 {
		t.Fatalf("t2 ran %d times (want 2: ahead, then after t1's commit), t3 %d", f.ran("t2"), f.ran("t3"))
	}
	if got := h.states(exec); got["t1"] != "completed" || got["t2"] != "failed" {
		t.Fatalf("tasks %v", got)
	}
}

// TestSlowStepRunsAheadOnce: a step whose program took longer than aheadFor ahead of a transaction and
// did not complete runs ahead no more: a tenant's program that spins to its limit costs that run once, not
// once an execution. One that is slow but completes is recorded, and runs ahead again.
func TestSlowStepRunsAheadOnce(t *testing.T) {
	f := newFakes()
	f.fail["t2"] = errBoom
	f.wait["t2"] = 2 * aheadFor
	h := inlineHarness(t, f)
	flow := h.flow(chainOf(4))
	h.waitStatus(h.startPrepared(flow, `{}`), "failed")
	if f.ran("t2") != 2 {
		t.Fatalf("t2 ran %d times in the first execution, want 2: ahead, then after t1's commit", f.ran("t2"))
	}
	h.waitStatus(h.startPrepared(flow, `{}`), "failed")
	if f.ran("t2") != 3 {
		t.Fatalf("t2 ran %d times after the second execution, want 3: it runs ahead no more", f.ran("t2"))
	}
}

// TestSlowStepThatCompletesStaysAhead: a slow step that completes ahead is recorded from there, by the
// transaction of the step before it, in every execution.
func TestSlowStepThatCompletesStaysAhead(t *testing.T) {
	f := newFakes()
	f.wait["t2"] = 2 * aheadFor
	h := inlineHarness(t, f)
	flow := h.flow(chainOf(4))
	for i := 0; i < 2; i++ {
		exec := h.startPrepared(flow, `{}`)
		h.waitStatus(exec, "completed")
		var together bool
		if err := h.db.Get(&together, `SELECT count(DISTINCT completed_at) = 1 FROM task_executions
			WHERE flow_execution_id = $1 AND task_name IN ('t1', 't2')`, exec); err != nil {
			t.Fatal(err)
		}
		if !together {
			t.Fatalf("execution %d: t2 was not recorded with t1", i+1)
		}
	}
	if f.ran("t2") != 2 {
		t.Fatalf("t2 ran %d times in two executions, want 2", f.ran("t2"))
	}
}
