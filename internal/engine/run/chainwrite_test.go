package run

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestPlainJSON: a text whose numbers jsonb writes back otherwise (an exponent, a minus zero) is not
// plain; strings that look like such numbers are.
func TestPlainJSON(t *testing.T) {
	for text, want := range map[string]bool{
		`{"n": 1}`: true, `[0, -1, 10.50, -0.5, 123456789012345678901234567890]`: true, `"1e2"`: true, `null`: true,
		`{"a": {"b": [true, "x", 3.25]}}`: true,
		`{"n": 1e2}`:                      false, `{"n": 1.0E2}`: false, `[-0]`: false, `[-0.00]`: false, `{"a": [1, 2.5e-3]}`: false,
		`{"n": `: false,
	} {
		if got := plainJSON([]byte(text)); got != want {
			t.Errorf("plainJSON(%s) = %v, want %v", text, got, want)
		}
	}
}

// TestLineOf: the line written at once starts at the step that ran on the completed task's output as
// the database wrote it, and stops before a step whose task before it has another successor, whose
// input jsonb would write otherwise, whose edge from it does not hold, or whose edges were decided on
// another version.
func TestLineOf(t *testing.T) {
	h := newHarness(t, newFakes().set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "t0", "type": "transform", "parameters": {"expression": "."}},
		{"name": "t1", "type": "transform", "parameters": {"expression": "."}},
		{"name": "t2", "type": "transform", "parameters": {"expression": "."}},
		{"name": "t3", "type": "transform", "parameters": {"expression": "."}},
		{"name": "t4", "type": "transform", "parameters": {"expression": "."}},
		{"name": "side", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "t0", "target": "t1"}, {"source": "t1", "target": "t2"}, {"source": "t2", "target": "t3"},
			{"source": "t3", "target": "t4"}, {"source": "t3", "target": "side"}]}`)
	p, err := h.e.plan(context.Background(), h.db, flow, 1)
	if err != nil {
		t.Fatal(err)
	}
	held := func(task string) *decision {
		d := &decision{key: p.key, held: make([]bool, len(p.succ[task]))}
		for i := range d.held {
			d.held[i] = true
		}
		return d
	}
	step := func(task, in string) stepAhead {
		return stepAhead{task: task, input: json.RawMessage(in), o: outcome{output: json.RawMessage(`{"n": 1}`), dec: held(task)}}
	}
	other := step("t2", `{"n": 1}`)
	other.o.dec = &decision{key: planKey{flow: flow, version: 2}, held: []bool{true}}
	unheld := step("t1", `{"n": 1}`)
	unheld.o.dec = &decision{key: p.key, held: []bool{false}}
	for _, c := range []struct {
		name  string
		wrote string // t0's output as the database wrote it
		ahead []stepAhead
		want  int
	}{
		{"to the task with two successors", `{"n": 1}`, []stepAhead{step("t1", `{"n":1}`), step("t2", `{"n": 1}`),
			step("t3", `{"n": 1}`), step("t4", `{"n": 1}`)}, 3},
		{"to the input jsonb writes otherwise", `{"n": 1}`, []stepAhead{step("t1", `{"n": 1}`), step("t2", `{"n": 1}`),
			step("t3", `{"n": 1e0}`)}, 2},
		{"to another version's decision", `{"n": 1}`, []stepAhead{step("t1", `{"n": 1}`), other}, 1},
		{"to an edge that does not hold", `{"n": 1}`, []stepAhead{unheld, step("t2", `{"n": 1}`)}, 1},
		{"from what the database wrote only", `{"n": 2}`, []stepAhead{step("t1", `{"n": 1}`), step("t2", `{"n": 1}`)}, 0},
	} {
		line := lineOf(p, final{task: "t0", completed: true, output: json.RawMessage(c.wrote), dec: held("t0")}, c.ahead)
		if len(line) != c.want {
			t.Errorf("%s: a line of %d steps, want %d", c.name, len(line), c.want)
		}
	}
}

// TestLineRunsAgainWhatTheDatabaseWritesOtherwise: a step that ran ahead on a number jsonb writes back
// otherwise ends the line before it, and runs again on what the database hands it; the steps before it
// are recorded once each.
func TestLineRunsAgainWhatTheDatabaseWritesOtherwise(t *testing.T) {
	f := newFakes()
	f.out["t3"] = json.RawMessage(`{"n": 1.0e2}`)
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(chainOf(6)), `{}`)
	h.waitStatus(exec, "completed")
	for task, want := range map[string]int{"t1": 1, "t2": 1, "t3": 1, "t4": 2} {
		if f.ran(task) != want {
			t.Errorf("%s ran %d times, want %d", task, f.ran(task), want)
		}
	}
	var attempts []struct {
		Task  string `db:"task_name"`
		Input string `db:"input"`
	}
	if err := h.db.Select(&attempts, `SELECT task_name, coalesce(input::text, '') AS input FROM task_executions
		WHERE flow_execution_id = $1 AND status = 'completed' ORDER BY task_name`, exec); err != nil {
		t.Fatal(err)
	}
	if len(attempts) != 6 || attempts[4].Task != "t4" || attempts[4].Input != `{"n": 100}` {
		t.Fatalf("attempts %v, want one each, t4's on {\"n\": 100}", attempts)
	}
}

// TestLineThatFindsOtherwiseWritesNothing: a line whose task another change moved meanwhile (here its count
// of predecessors, raised while the step ran ahead) fails its transaction; the completion is then
// recorded alone, and nothing of the line stays: no attempt, and the task counted down once.
func TestLineThatFindsOtherwiseWritesNothing(t *testing.T) {
	f := newFakes()
	f.wait["t2"] = 200 * time.Millisecond
	h := inlineHarness(t, f)
	h.e.aheadBudget = time.Minute
	exec := h.startPrepared(h.flow(chainOf(4)), `{}`)
	// t1 runs after the start; its completion runs t2 ahead, which waits: meanwhile t2 is made to wait on
	// two predecessors.
	for deadline := time.Now().Add(5 * time.Second); f.ran("t1") == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("t1 did not run")
		}
	}
	if _, err := h.db.Exec(`UPDATE execution_tasks SET waiting_on = 2 WHERE flow_execution_id = $1 AND task_name = 't2'`, exec); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); h.states(exec)["t1"] != "completed"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("t1 was not recorded: tasks %v", h.states(exec))
		}
	}
	var attempts, waiting int
	if err := h.db.QueryRow(`SELECT (SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND task_name IN ('t2', 't3')),
		(SELECT waiting_on FROM execution_tasks WHERE flow_execution_id = $1 AND task_name = 't2')`, exec).Scan(&attempts, &waiting); err != nil {
		t.Fatal(err)
	}
	if attempts != 0 || waiting != 1 || f.ran("t2") != 1 {
		t.Fatalf("after the line failed: %d attempts of t2 and t3, t2 waits on %d, ran %d times (want 0, 1, 1)", attempts, waiting, f.ran("t2"))
	}
}
