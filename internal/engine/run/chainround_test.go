package run

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// TestChainRoundWritesWhatTheTransactionWould: a 30-task chain whose rounds are each one call of
// engine_chain_round ends with the same tasks, attempts, inputs and outputs as one whose rounds are
// transactions, each task run once.
func TestChainRoundWritesWhatTheTransactionWould(t *testing.T) {
	var rows [2][]string
	for i, inTx := range []bool{false, true} {
		f := newFakes()
		h := inlineHarness(t, f)
		h.e.aheadBudget = time.Minute
		h.e.chainInTx = inTx
		exec := h.startPrepared(h.flow(chainOf(30)), `{"n": 1}`)
		h.waitStatus(exec, "completed")
		if calls := h.e.chainRounds.Load(); (calls > 0) == inTx {
			t.Errorf("in a transaction %v: %d rounds were written in one call", inTx, calls)
		}
		if err := h.db.Select(&rows[i], `SELECT concat_ws(' ', k.task_name, k.state, k.attempts, t.task_execution_idx, t.status,
				t.input, t.output, t.output = k.output, t.organization_id = x.organization_id)
			FROM execution_tasks k JOIN task_executions t USING (flow_execution_id, task_name)
			JOIN flow_executions x ON x.id = k.flow_execution_id
			WHERE k.flow_execution_id = $1 ORDER BY k.task_name, t.task_execution_idx`, exec); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := h.db.Get(&left, `SELECT tasks_left FROM flow_executions WHERE id = $1`, exec); err != nil || left != 0 {
			t.Errorf("in a transaction %v: %d tasks left (%v)", inTx, left, err)
		}
		for i := 1; i < 30; i++ {
			if n := f.ran(fmt.Sprintf("t%d", i)); n != 1 {
				t.Errorf("in a transaction %v: t%d ran %d times", inTx, i, n)
			}
		}
	}
	if len(rows[0]) != 30 || strings.Join(rows[0], "\n") != strings.Join(rows[1], "\n") {
		t.Errorf("one call a round wrote\n%s\nthe transactions\n%s", strings.Join(rows[0], "\n"), strings.Join(rows[1], "\n"))
	}
}

// TestChainRoundThatFindsOtherwiseWritesNothing calls engine_chain_round on a 5-task chain whose t0 runs,
// with a line of t1 and t2 and then t3: it writes the round; over a task that does not wait on the one
// before alone, or on another version, it raises and writes nothing; an attempt that is not running any
// more is left as it is, one of an execution that stopped is cancelled, and nothing else is written.
func TestChainRoundThatFindsOtherwiseWritesNothing(t *testing.T) {
	h := newHarness(t, newFakes().set())
	flow := h.flow(chainOf(5))
	for _, c := range []struct {
		name, set string // an update of the execution's rows, before
		version   int
		code      string // the error raised
		attempt   string // how t0's attempt ends ("": as it was)
		written   int    // tasks completed with their attempt, t0's included
		left      int
	}{
		{"written", "", 1, "", "completed", 3, 2},
		{"over a task otherwise", `UPDATE execution_tasks SET waiting_on = 2 WHERE flow_execution_id = $1 AND task_name = 't2'`, 1, "LW002", "", 0, 5},
		{"on another version", "", 2, "LW001", "", 0, 5},
		{"ahead of a finished attempt", `UPDATE task_executions SET status = 'completed' WHERE flow_execution_id = $1`, 1, "", "", 0, 5},
		{"of a stopped execution", `UPDATE flow_executions SET status = 'failed' WHERE id = $1`, 1, "", "cancelled", 0, 5},
	} {
		exec := h.start(flow, `{}`) // t0 is ready, t1 … t4 wait on the one before
		if _, err := h.db.Exec(`UPDATE task_executions SET status = 'running' WHERE flow_execution_id = $1`, exec); err != nil {
			t.Fatal(err)
		}
		if c.set != "" {
			if _, err := h.db.Exec(c.set, exec); err != nil {
				t.Fatal(err)
			}
		}
		var got chainRound
		err := h.db.Get(&got, `SELECT attempt_status, next_idx, next_written FROM engine_chain_round($1, 't0', 0, '{"n": 1}', '',
			$2, $3, '{t1,t2}', '{"{\"n\": 1}","{\"n\": 2}"}', '{"{\"n\": 2}","{\"n\": 3}"}', '{"",""}', 't3', 60)`, exec, flow, c.version)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) {
			if string(pqErr.Code) != c.code {
				t.Errorf("%s: %v, want the error %q", c.name, err, c.code)
			}
		} else if err != nil || c.code != "" {
			t.Errorf("%s: %v, want the error %q", c.name, err, c.code)
		}
		var done, next, left int
		var t0 string
		if err := h.db.QueryRow(`SELECT
				(SELECT count(*) FROM task_executions t JOIN execution_tasks k USING (flow_execution_id, task_name)
					WHERE t.flow_execution_id = $1 AND t.status = 'completed' AND k.state = 'completed' AND k.attempts = 1
					  AND t.task_execution_idx = 0 AND t.output = k.output AND t.organization_id = x.organization_id),
				(SELECT count(*) FROM execution_tasks k JOIN task_executions t USING (flow_execution_id, task_name)
					WHERE k.flow_execution_id = $1 AND k.task_name = 't3' AND k.state = 'ready' AND k.attempts = 1 AND t.status = 'running'
					  AND t.task_execution_idx = 0 AND t.input = '{"n": 3}' AND t.timeout_at > now()),
				x.tasks_left, (SELECT status FROM task_executions WHERE flow_execution_id = $1 AND task_name = 't0')
			FROM flow_executions x WHERE x.id = $1`, exec).Scan(&done, &next, &left, &t0); err != nil {
			t.Fatal(err)
		}
		want := c.attempt
		if want == "" {
			want = map[bool]string{true: "completed", false: "running"}[strings.Contains(c.set, "'completed'")]
		}
		if done != c.written || next != c.written/3 || left != c.left || t0 != want {
			t.Errorf("%s: %d tasks completed with their attempt, t3 claimed %d times, %d tasks left, t0's attempt %s", c.name, done, next,
				left, t0)
		}
		if err == nil && c.written > 0 && (got.NextIdx == nil || *got.NextIdx != 0 || got.Written == nil || !*got.Written) {
			t.Errorf("%s: the call answered %+v", c.name, got)
		}
	}
}

// TestChainRoundCountsTheEngineActiveStatuses: the function completes an attempt only in an execution
// whose status is one of state.ExecActive, which it lists itself.
func TestChainRoundCountsTheEngineActiveStatuses(t *testing.T) {
	h := newHarness(t, newFakes().set())
	var def string
	if err := h.db.Get(&def, `SELECT pg_get_functiondef('engine_chain_round'::regproc)`); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(def, "x.status IN "+state.List(state.ExecActive)); n != 2 {
		t.Errorf("engine_chain_round lists the active statuses %s %d times, want 2", state.List(state.ExecActive), n)
	}
}
