package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// reviewsJoin starts root → r0…r(n-1) (parked, as reviews are) → join and leaves the execution awaiting
// the n reviews; it gives the flow and the execution.
func reviewsJoin(h *harness, f *fakes, n int) (uuid.UUID, uuid.UUID) {
	h.t.Helper()
	tasks := []string{`{"name": "root", "type": "transform", "parameters": {"expression": "."}}`,
		`{"name": "join", "type": "transform", "parameters": {"expression": "."}}`}
	var edges []string
	for i := 0; i < n; i++ {
		f.park[fmt.Sprintf("r%d", i)] = true
		tasks = append(tasks, fmt.Sprintf(`{"name": "r%d", "type": "human_review", "parameters": {}}`, i))
		edges = append(edges, fmt.Sprintf(`{"source": "root", "target": "r%d"}, {"source": "r%d", "target": "join"}`, i, i))
	}
	flow := h.flow(`{"version": 1, "tasks": [` + strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}`)
	exec := h.start(flow, `{}`)
	h.drain()
	if s := h.status(exec); s != "awaiting_input" {
		h.t.Fatalf("the execution is %s, want awaiting_input", s)
	}
	return flow, exec
}

// TestJoinOfSiblingsReportedApartHasEveryOutput: ten reviews a join waits for, each reported in a
// transaction of its own at the same moment, meet on the join's counter; the transaction that brings it
// to zero waited for the others' locks, and its statement's snapshot is older than their commits. The join
// still gets all ten outputs (count reads them again, see fresh), not only those its snapshot had, and
// once all are in, the execution no longer awaits input.
func TestJoinOfSiblingsReportedApartHasEveryOutput(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	const n = 10
	_, exec := reviewsJoin(h, f, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.inTx(func(tx *sqlx.Tx) error {
				return h.e.Report(context.Background(), tx, AttemptKey{Execution: exec, Task: fmt.Sprintf("r%d", i)},
					json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)), nil)
			})
		}()
	}
	wg.Wait()
	if s := h.status(exec); s != "in_progress" {
		t.Fatalf("with no review left open the execution is %s, want in_progress", s)
	}
	h.drain()
	if in := joinInput(h, exec); h.status(exec) != "completed" || len(in) != n {
		t.Fatalf("execution %s, the join's input has %d outputs, want %d: %v", h.status(exec), len(in), n, in)
	}
}

// joinInput is the input of the join's attempt: its predecessors' outputs by name.
func joinInput(h *harness, exec uuid.UUID) map[string]any {
	h.t.Helper()
	var raw json.RawMessage
	if err := h.db.Get(&raw, `SELECT input FROM task_executions WHERE flow_execution_id = $1 AND task_name = 'join'`, exec); err != nil {
		h.t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		h.t.Fatal(err)
	}
	return in
}

// reviewAttempts counts the attempts of the reviews (r0, r1, …) that are in status.
func reviewAttempts(h *harness, exec uuid.UUID, status string) int {
	h.t.Helper()
	var n int
	if err := h.db.Get(&n, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1
		AND task_name ~ '^r[0-9]+$' AND status = $2`, exec, status); err != nil {
		h.t.Fatal(err)
	}
	return n
}
