package run

import (
	"context"
	"encoding/json"
	"testing"
)

// TestLineWrittenWithItsCompletion: the statement that completes a lone attempt writes the line of steps
// run ahead of it and makes the task after the line ready, and the next statement completes the line
// and queues that task; a line over a task that does not wait on the one before alone fails, and one
// ahead of an attempt that is not running any more writes nothing.
func TestLineWrittenWithItsCompletion(t *testing.T) {
	h := newHarness(t, newFakes().set())
	flow := h.flow(chainOf(5))
	p, err := h.e.plan(context.Background(), h.db, flow, 1)
	if err != nil {
		t.Fatal(err)
	}
	held := &decision{key: p.key, held: []bool{true}}
	step := func(task string) stepAhead {
		return stepAhead{task: task, input: json.RawMessage(`{"n": 1}`), o: outcome{output: json.RawMessage(`{"n": 2}`), dec: held, plan: p}}
	}
	for _, c := range []struct {
		name    string
		attempt string // t0's attempt's status, before
		waiting int    // t2's count of predecessors, before
		ok      bool
		done    int // tasks completed with their attempt, t0's included
	}{{"written", "running", 1, true, 3}, {"over a task otherwise", "running", 2, false, 0}, {"ahead of a finished attempt", "completed", 1, true, 0}} {
		exec := h.start(flow, `{}`) // t0 is ready, t1 … t4 wait on the one before
		for _, status := range []string{"running", c.attempt} {
			if _, err := h.db.Exec(`UPDATE task_executions SET status = $2 WHERE flow_execution_id = $1`, exec, status); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := h.db.Exec(`UPDATE execution_tasks SET waiting_on = $2 WHERE flow_execution_id = $1 AND task_name = 't2'`,
			exec, c.waiting); err != nil {
			t.Fatal(err)
		}
		tx, err := h.db.Beginx()
		if err != nil {
			t.Fatal(err)
		}
		round := []*completion{{args: taskArgs{Execution: exec, Task: "t0", Org: h.org}, output: json.RawMessage(`{"n": 1}`),
			dec: held, ahead: []stepAhead{step("t1"), step("t2")}}}
		b := &batch{}
		err = h.e.completeGroup(context.Background(), tx, exec, round, draftLine(round), b)
		b.drop(h.e)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
		if err == nil {
			var done, next int
			if err := tx.QueryRow(`SELECT count(*) FROM task_executions t JOIN execution_tasks k USING (flow_execution_id, task_name)
				WHERE t.flow_execution_id = $1 AND t.status = 'completed' AND k.state = 'completed' AND k.attempts = 1
				  AND t.task_execution_idx = 0 AND t.output = k.output
				  AND t.organization_id = (SELECT organization_id FROM flow_executions WHERE id = $1)`, exec).Scan(&done); err != nil {
				t.Fatal(err)
			}
			if err := tx.QueryRow(`SELECT count(*) FROM execution_tasks k JOIN task_executions t USING (flow_execution_id, task_name)
				WHERE k.flow_execution_id = $1 AND k.task_name = 't3' AND k.state = 'ready' AND k.attempts = 1
				  AND t.task_execution_idx = 0 AND t.input = '{"n": 2}'`, exec).Scan(&next); err != nil {
				t.Fatal(err)
			}
			var moved, attempts int
			if err := tx.QueryRow(`SELECT (SELECT count(*) FROM execution_tasks WHERE flow_execution_id = $1 AND task_name <> 't0'
				AND state <> 'waiting'), (SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND task_name <> 't0')`,
				exec).Scan(&moved, &attempts); err != nil {
				t.Fatal(err)
			}
			if done != c.done || next != c.done/3 || round[0].recorded != 2*c.done/3 || moved != c.done || attempts != c.done {
				t.Errorf("%s: %d tasks completed with their attempt, t3 queued %d times, %d steps recorded; %d tasks after t0 moved, "+
					"%d attempts", c.name, done, next, round[0].recorded, moved, attempts)
			}
		}
		_ = tx.Rollback()
	}
}

// TestClaimAfter: the task queued in the statement that completes a line is the only successor of its
// last step, over a held edge, with that step alone upstream, reading no variables, on an output jsonb
// writes back as written; otherwise the walk decides it.
func TestClaimAfter(t *testing.T) {
	h := newHarness(t, newFakes().set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "."}},
		{"name": "c", "type": "transform", "parameters": {"expression": "."}},
		{"name": "d", "type": "transform", "parameters": {"expression": "."}},
		{"name": "side", "type": "transform", "parameters": {"expression": "."}},
		{"name": "join", "type": "transform", "parameters": {"expression": "."}},
		{"name": "reads", "type": "transform", "parameters": {"expression": "$input"}},
		{"name": "e", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}, {"source": "b", "target": "side"},
			{"source": "c", "target": "join"}, {"source": "side", "target": "join"}, {"source": "join", "target": "reads"},
			{"source": "d", "target": "e"}]}`)
	p, err := h.e.plan(context.Background(), h.db, flow, 1)
	if err != nil {
		t.Fatal(err)
	}
	step := func(task, out string, held ...bool) stepAhead {
		return stepAhead{task: task, o: outcome{output: json.RawMessage(out), dec: &decision{key: p.key, held: held}}}
	}
	for _, c := range []struct {
		name string
		last stepAhead
		want string
	}{
		{"the only successor", step("a", `{"n": 1}`, true), "b"},
		{"not over an edge that does not hold", step("a", `{"n": 1}`, false), ""},
		{"not on an output jsonb writes otherwise", step("a", `{"n": 1e0}`, true), ""},
		{"not one of two successors", step("b", `{"n": 1}`, true, true), ""},
		{"not a join", step("c", `{"n": 1}`, true), ""},
		{"not a task reading variables", step("join", `{"n": 1}`, true), ""},
		{"none after the last task", step("e", `{"n": 1}`), ""},
		{"another chain's", step("d", `{"n": 1}`, true), "e"},
	} {
		if got := claimAfter(p, c.last); got != c.want {
			t.Errorf("%s: claimAfter = %q, want %q", c.name, got, c.want)
		}
	}
}
