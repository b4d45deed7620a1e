package run

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// claimedAttempt is what the tests scan a claim into.
type claimedAttempt struct {
	ID         uuid.UUID `db:"id"`
	Execution  uuid.UUID `db:"flow_execution_id"`
	Task       string    `db:"task_name"`
	Flow       uuid.UUID `db:"flow_id"`
	Version    int       `db:"flow_version"`
	Parameters string    `db:"parameters"`
}

const claimColumns = `t.id, t.flow_execution_id, t.task_name`

// TestOutsideWorkersMoveOnlyExternalAttempts: a claim takes the external attempt and moves the
// execution to running; the worker's report completes it and the engine runs on; a report on the
// transform the engine runs is refused, and changes nothing.
func TestOutsideWorkersMoveOnlyExternalAttempts(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	flow := h.flow(`{"version": 1, "tasks": [
		{"name": "fetch", "type": "external", "parameters": {"queue": "ocr"}},
		{"name": "shape", "type": "transform", "parameters": {"expression": "."}}], "edges": [{"source": "fetch", "target": "shape"}]}`)
	exec := h.start(flow, `{}`)
	var c claimedAttempt
	var ok bool
	h.inTx(func(tx *sqlx.Tx) (err error) {
		ok, err = ClaimOutside(context.Background(), tx, Claim{Org: h.org, Queue: new("ocr"), Lease: 30, Worker: "w"},
			Into{Columns: claimColumns, Dest: &c})
		return err
	})
	if !ok || c.Task != "fetch" || c.Execution != exec || c.Flow != flow || c.Parameters != `{"queue": "ocr"}` || h.status(exec) != "running" {
		t.Fatalf("claimed %v %+v; execution %s", ok, c, h.status(exec))
	}
	report := func(task string, to state.Attempt) error {
		var got claimedAttempt
		return h.tryTx(func(tx *sqlx.Tx) error {
			_, err := h.e.ReportOutside(context.Background(), tx, Outside{Org: h.org, Key: AttemptKey{Execution: exec, Task: task},
				Status: to, Output: new(`{"text": "hi"}`), Actor: "w"}, Into{Columns: claimColumns, Dest: &got})
			return err
		})
	}
	if err := report("fetch", state.AttemptCompleted); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if h.status(exec) != "completed" {
		t.Fatalf("execution %s", h.status(exec))
	}
	var refused NotOutsideError
	if err := report("shape", state.AttemptFailed); !errors.As(err, &refused) || refused.Type != "transform" {
		t.Fatalf("a report on the engine's own attempt: %v", err)
	}
	var move MoveError
	if err := report("fetch", state.AttemptRunning); !errors.As(err, &move) {
		t.Fatalf("a completed attempt moved back: %v", err)
	}
}

// tryTx runs f in a transaction and returns its error (rolled back), for calls a test expects refused.
func (h *harness) tryTx(f func(tx *sqlx.Tx) error) error {
	tx, err := h.db.Beginx()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// TestFanOutCompletionsMeetAtTheJoin: the branches of a fan-out completing at the same moment, in
// separate workers, make the join ready exactly once and the execution completes with its output.
func TestFanOutCompletionsMeetAtTheJoin(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	exec := h.start(h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "."}},
		{"name": "c", "type": "transform", "parameters": {"expression": "."}},
		{"name": "d", "type": "transform", "parameters": {"expression": "."}},
		{"name": "join", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "join"}, {"source": "b", "target": "join"}, {"source": "c", "target": "join"},
			{"source": "d", "target": "join"}]}`), `{"x": 1}`)
	var wg sync.WaitGroup
	for _, task := range []string{"a", "b", "c", "d"} {
		wg.Go(func() { h.stepTask(task) })
	}
	wg.Wait()
	h.drain()
	if h.status(exec) != "completed" || f.ran("join") != 1 {
		t.Fatalf("execution %s, join ran %d times", h.status(exec), f.ran("join"))
	}
	var left int
	if err := h.db.Get(&left, `SELECT tasks_left FROM flow_executions WHERE id = $1`, exec); err != nil || left != 0 {
		t.Fatalf("tasks_left %d (%v)", left, err)
	}
}
