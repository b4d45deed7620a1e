package run

import (
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/state/statetest"
)

// TestChainRunsStepByStep: each step of a chain is one job; the execution goes queued -> running ->
// in_progress -> completed with the last task's output.
func TestChainRunsStepByStep(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "."}},
		{"name": "c", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]}`)
	f.out["c"] = map[string]any{"done": true}
	exec := h.start(flow, `{"n": 1}`)
	if s := h.status(exec); s != "queued" {
		t.Fatalf("a new execution is %s", s)
	}
	if !h.step() || h.status(exec) != "in_progress" {
		t.Fatalf("after the first step the execution is %s", h.status(exec))
	}
	if n := h.drain(); n != 2 {
		t.Fatalf("the rest of the chain took %d jobs, want 2", n)
	}
	var out string
	if err := h.db.Get(&out, `SELECT output::text FROM flow_executions WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	if h.status(exec) != "completed" || out != `{"done": true}` {
		t.Fatalf("execution %s with output %s", h.status(exec), out)
	}
}

// TestSkippedTasksShowAsSkipped: a task none of whose incoming edges holds is skipped, and says so in
// its task status; so is a task that only depends on skipped tasks.
func TestSkippedTasksShowAsSkipped(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "yes", "type": "transform", "parameters": {"expression": "."}},
		{"name": "no", "type": "transform", "parameters": {"expression": "."}},
		{"name": "after_no", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "yes", "condition": ".go == true"},
			{"source": "a", "target": "no", "condition": ".go == false"},
			{"source": "no", "target": "after_no"}]}`)
	exec := h.start(flow, `{"go": true}`)
	h.drain()
	if s := h.status(exec); s != "completed" {
		t.Fatalf("execution %s", s)
	}
	got := h.states(exec)
	if got["yes"] != "completed" || got["no"] != "skipped" || got["after_no"] != "skipped" {
		t.Fatalf("task states %v", got)
	}
	var shown []struct {
		Task   string  `db:"task_name"`
		Status *string `db:"status"`
	}
	if err := h.db.Select(&shown, `SELECT task_name, status FROM flow_task_statuses WHERE flow_execution_id = $1 ORDER BY seq`, exec); err != nil {
		t.Fatal(err)
	}
	if len(shown) != 2 || shown[0].Task != "no" || shown[1].Task != "after_no" || *shown[0].Status != "skipped" || *shown[1].Status != "skipped" {
		t.Fatalf("task statuses %+v", shown)
	}
	if f.ran("no") != 0 || f.ran("after_no") != 0 {
		t.Fatal("a skipped task ran")
	}
}

// TestSiblingFailureCancelsAtOnce: when one branch of a fan-out fails for good, the other branches'
// queued attempts, a parked one, and the tasks still waiting are cancelled in the same transaction,
// not when each would have run.
func TestSiblingFailureCancelsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "bad", "type": "transform", "parameters": {"expression": "."}},
		{"name": "held", "type": "human_review", "parameters": {}},
		{"name": "slow", "type": "transform", "parameters": {"expression": "."}},
		{"name": "join", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "bad", "target": "join"}, {"source": "held", "target": "join"}, {"source": "slow", "target": "join"}]}`)
	f.park["held"] = true
	f.fail["bad"] = executors.Permanent(errBoom)
	exec := h.start(flow, `{}`)
	if !h.stepTask("held") || !h.stepTask("bad") {
		t.Fatal("the roots' jobs are missing")
	}
	if s := h.status(exec); s != "failed" {
		t.Fatalf("execution %s", s)
	}
	got := h.states(exec)
	if got["bad"] != "failed" || got["join"] != "cancelled" || got["slow"] != "cancelled" {
		t.Fatalf("task states right after the failure: %v", got)
	}
	var open int
	if err := h.db.Get(&open, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND status IN ('queued', 'running')`, exec); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Fatalf("%d attempts still queued or running after the execution failed", open)
	}
	h.drain()
	if f.ran("slow") != 0 {
		t.Fatal("a cancelled sibling ran after the execution failed")
	}
}

// TestRecorderCatchesIllegalMoves: the recorder the harness installs does see a move that no state
// machine allows, whoever makes it (here a statement no code of the engine has).
func TestRecorderCatchesIllegalMoves(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	exec := h.start(h.flow(`{"version": 1, "tasks": [{"name": "a", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`), `{}`)
	h.drain()
	if _, err := h.db.Exec(`UPDATE flow_executions SET status = 'running' WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	errs := statetest.Illegal(t, h.db)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "completed to running") {
		t.Fatalf("recorded %v, want the one illegal move", errs)
	}
	// The harness checks the record again when the test ends; this move was the test's own.
	if _, err := h.db.Exec(`TRUNCATE engine_moves`); err != nil {
		t.Fatal(err)
	}
}

// TestFlowsCarryTheirData: expressions read $input and $tasks of tasks upstream; a condition passes its
// input on to the branch its result chose, records the result on the attempt, and its edges follow
// their branch (an edge condition out of it reads variables too).
func TestFlowsCarryTheirData(t *testing.T) {
	t.Parallel()
	q := executors.JQ{}
	h := newHarness(t, executors.Set{"transform": executors.Transform(q), "condition": executors.Condition(q)})
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
		{"name": "check", "type": "condition", "parameters": {"expression": ".n > 1"}},
		{"name": "big", "type": "transform", "parameters": {"expression": "{big: ., input: $input, a: $tasks.a}"}},
		{"name": "small", "type": "transform", "parameters": {"expression": "{small: ., was: $tasks.check}"}}],
		"edges": [{"source": "a", "target": "check"},
			{"source": "check", "target": "big", "condition": "$input.go and $tasks.check.n > 1"},
			{"source": "check", "target": "small", "branch": false}]}`)
	output := func(exec any, task string) string {
		var out string
		if err := h.db.Get(&out, `SELECT coalesce(output::text, '') FROM execution_tasks WHERE flow_execution_id = $1
			AND task_name = $2`, exec, task); err != nil {
			t.Fatal(err)
		}
		return out
	}
	exec := h.start(flow, `{"n": 1, "go": true}`)
	h.drain()
	if s := h.status(exec); s != "completed" {
		t.Fatalf("execution %s", s)
	}
	if got := h.states(exec); got["big"] != "completed" || got["small"] != "skipped" {
		t.Fatalf("task states %v", got)
	}
	if got := output(exec, "big"); got != `{"a": {"n": 2}, "big": {"n": 2}, "input": {"n": 1, "go": true}}` {
		t.Fatalf("big's output %s", got)
	}
	var detail string
	if err := h.db.Get(&detail, `SELECT detail::text FROM task_executions WHERE flow_execution_id = $1
		AND task_name = 'check'`, exec); err != nil || detail != `{"result": true}` || output(exec, "check") != `{"n": 2}` {
		t.Fatalf("the condition's detail %s (%v), output %s", detail, err, output(exec, "check"))
	}

	exec = h.start(flow, `{"n": 0, "go": true}`)
	h.drain()
	if got := h.states(exec); h.status(exec) != "completed" || got["big"] != "skipped" || got["small"] != "completed" {
		t.Fatalf("execution %s, task states %v", h.status(exec), got)
	}
	if got := output(exec, "small"); got != `{"was": {"n": 1}, "small": {"n": 1}}` {
		t.Fatalf("small's output %s", got)
	}
}
