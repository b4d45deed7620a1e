package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestReviewsReportedApartLeaveNoExecutionAwaiting: ten reviews, each followed by a task of its own,
// reported in transactions of their own at the same moment, meet only on the execution's row. Once all
// are in, no attempt is parked, so the execution is in progress, whichever transaction counted last.
func TestReviewsReportedApartLeaveNoExecutionAwaiting(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	const n = 10
	tasks := []string{`{"name": "root", "type": "transform", "parameters": {"expression": "."}}`}
	var edges []string
	for i := 0; i < n; i++ {
		f.park[fmt.Sprintf("r%d", i)] = true
		tasks = append(tasks, fmt.Sprintf(`{"name": "r%d", "type": "human_review", "parameters": {}}`, i),
			fmt.Sprintf(`{"name": "t%d", "type": "transform", "parameters": {"expression": "."}}`, i))
		edges = append(edges, fmt.Sprintf(`{"source": "root", "target": "r%d"}, {"source": "r%d", "target": "t%d"}`, i, i, i))
	}
	exec := h.start(h.flow(`{"version": 1, "tasks": [`+strings.Join(tasks, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`), `{}`)
	h.drain()
	if s := h.status(exec); s != "awaiting_input" {
		t.Fatalf("the execution is %s, want awaiting_input", s)
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.inTx(func(tx *sqlx.Tx) error {
				return h.e.Report(context.Background(), tx, AttemptKey{Execution: exec, Task: fmt.Sprintf("r%d", i)}, json.RawMessage(`{}`), nil)
			})
		}()
	}
	wg.Wait()
	if s := h.status(exec); s != "in_progress" {
		t.Fatalf("with no review left open the execution is %s, want in_progress", s)
	}
}
