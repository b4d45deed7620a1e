package run

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/state"
)

const oneTask = `{"version": 1, "tasks": [{"name": "a", "type": "transform", "parameters": {"expression": "."},
	"retry": {"max_attempts": 2, "backoff_seconds": 60}}], "edges": []}`

// inTx runs f in a transaction of the harness's database.
func (h *harness) inTx(f func(tx *sqlx.Tx) error) {
	h.t.Helper()
	if err := dbx.WithTx(context.Background(), h.db, f); err != nil {
		h.t.Fatal(err)
	}
}

// TestLostLeaseRunsAgain: an attempt claimed by a process that died before running it stays running
// until its lease ends; SweepLost then queues the same attempt again (same index), and it runs once.
func TestLostLeaseRunsAgain(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	exec := h.start(h.flow(oneTask), `{"n": 1}`)
	// The process claims the attempt, then dies: no executor runs and its job is gone with it.
	if _, ok, err := h.e.claim(context.Background(), taskArgs{Execution: exec, Task: "a", Idx: 0}); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if _, err := h.db.Exec(`DELETE FROM river_job`); err != nil {
		t.Fatal(err)
	}
	if err := h.e.SweepLost(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h.drain() != 0 {
		t.Fatal("an attempt under a live lease was taken again")
	}
	if _, err := h.db.Exec(`UPDATE task_executions SET timeout_at = now() - interval '1 second' WHERE flow_execution_id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	if err := h.e.SweepLost(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := h.drain(); n != 1 || h.status(exec) != "completed" || f.ran("a") != 1 {
		t.Fatalf("after the sweep: %d jobs, execution %s, %d runs", n, h.status(exec), f.ran("a"))
	}
	var attempts int
	if err := h.db.Get(&attempts, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1`, exec); err != nil || attempts != 1 {
		t.Fatalf("%d attempts (%v), want the one delivered again", attempts, err)
	}
}

// TestRetryWaitsForItsBackoff: a failed attempt queues the next one after the task's backoff, not
// before; the retry then completes the task.
func TestRetryWaitsForItsBackoff(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	f.fail["a"] = errBoom
	exec := h.start(h.flow(oneTask), `{}`)
	if !h.step() || h.drain() != 0 {
		t.Fatal("the retry ran before its backoff")
	}
	f.fail["a"] = nil
	if _, err := h.db.Exec(`UPDATE river_job SET scheduled_at = now() WHERE state = 'scheduled'`); err != nil {
		t.Fatal(err)
	}
	if h.drain() != 1 || h.status(exec) != "completed" {
		t.Fatalf("execution %s after the retry", h.status(exec))
	}
	var statuses []string
	if err := h.db.Select(&statuses, `SELECT status FROM task_executions WHERE flow_execution_id = $1 ORDER BY task_execution_idx`, exec); err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 2 || statuses[0] != "failed" || statuses[1] != "completed" {
		t.Fatalf("attempts %v", statuses)
	}
}

// TestParkedAttemptResumesOnReport: a parked attempt keeps the execution awaiting input until Report
// finishes it; a conditional edge out of it is decided by a job after the reporting transaction.
func TestParkedAttemptResumesOnReport(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	f.park["review"] = true
	exec := h.start(h.flow(`{"version": 1, "tasks": [
		{"name": "review", "type": "human_review", "parameters": {}},
		{"name": "ok", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "review", "target": "ok", "condition": ".review_result"}]}`), `{}`)
	h.drain()
	if s := h.status(exec); s != "awaiting_input" {
		t.Fatalf("a parked execution is %s", s)
	}
	h.inTx(func(tx *sqlx.Tx) error {
		return h.e.Report(context.Background(), tx, AttemptKey{Execution: exec, Task: "review"}, json.RawMessage(`{"review_result": true}`), nil)
	})
	if s := h.status(exec); s != "awaiting_input" {
		t.Fatalf("the report's conditional edges were decided inside its transaction: %s", s)
	}
	if h.drain() != 2 || h.status(exec) != "completed" || f.ran("ok") != 1 {
		t.Fatalf("execution %s, ok ran %d times", h.status(exec), f.ran("ok"))
	}
}

// TestRerunRunsWhatChanged: rerunning a completed execution on a version that changed one task runs
// that task and what follows it, and keeps the others' results.
func TestRerunRunsWhatChanged(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "."}}], "edges": [{"source": "a", "target": "b"}]}`)
	exec := h.start(flow, `{}`)
	h.drain()
	if _, err := h.db.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, valid)
		VALUES ($1, 2, $2, 'f', $3, true)`, flow, h.org, `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "{b: 2}"}}], "edges": [{"source": "a", "target": "b"}]}`); err != nil {
		t.Fatal(err)
	}
	h.inTx(func(tx *sqlx.Tx) error { return h.e.Rerun(context.Background(), tx, exec, 2) })
	if s := h.status(exec); s != "queued" {
		t.Fatalf("a rerun execution is %s", s)
	}
	h.drain()
	if h.status(exec) != "completed" || f.ran("a") != 1 || f.ran("b") != 2 {
		t.Fatalf("execution %s; a ran %d, b %d times", h.status(exec), f.ran("a"), f.ran("b"))
	}
}

// TestHaltManyEndsEverything: a stop cancels the queued and parked attempts and the waiting tasks of
// each execution, then fails it; a delete ends finished ones too.
func TestHaltManyEndsEverything(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	f.park["review"] = true
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "review", "type": "human_review", "parameters": {}},
		{"name": "other", "type": "transform", "parameters": {"expression": "."}},
		{"name": "after", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "review", "target": "after"}, {"source": "other", "target": "after"}]}`)
	parked, done := h.start(flow, `{}`), h.start(h.flow(oneTask), `{}`)
	h.stepTask("review")
	h.stepTask("a")
	var n int64
	h.inTx(func(tx *sqlx.Tx) (err error) {
		n, err = HaltMany(context.Background(), tx, Halt{IDs: []uuid.UUID{parked, done}, To: state.ExecFailed,
			Why: Stopped("stopped by test"), Actor: "test"})
		return err
	})
	if n != 1 || h.status(parked) != "failed" || h.status(done) != "completed" {
		t.Fatalf("stopped %d: %s and %s", n, h.status(parked), h.status(done))
	}
	if got := h.states(parked); got["review"] != "cancelled" || got["other"] != "cancelled" || got["after"] != "cancelled" {
		t.Fatalf("task states after the stop %v", got)
	}
	if h.drain(); f.ran("other") != 0 {
		t.Fatal("an attempt of a stopped execution ran")
	}
	h.inTx(func(tx *sqlx.Tx) (err error) {
		n, err = HaltMany(context.Background(), tx, Halt{IDs: []uuid.UUID{parked, done}, To: state.ExecDeleted, Actor: "test"})
		return err
	})
	if n != 2 || h.status(parked) != "deleted" || h.status(done) != "deleted" {
		t.Fatalf("deleted %d: %s and %s", n, h.status(parked), h.status(done))
	}
}
