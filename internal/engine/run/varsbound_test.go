package run

import (
	"strings"
	"testing"
)

// TestVariablesAreBounded: a task reading $tasks whole past the variables' bound fails with
// limit_exceeded, saying what to do instead, without running, and what would not fit is not stored;
// a task reading one output by name in the same flow runs.
func TestVariablesAreBounded(t *testing.T) {
	f := newFakes()
	f.out["a"] = strings.Repeat("x", 600)
	f.out["b"] = strings.Repeat("y", 600)
	h := newHarness(t, f.set())
	h.e.maxVars = 1000
	exec := h.start(h.flow(`{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "transform", "parameters": {"expression": "$tasks.a"}},
		{"name": "c", "type": "transform", "parameters": {"expression": "$tasks"}}],
		"edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]}`), `{}`)
	h.drain()
	if got := h.status(exec); got != "failed" {
		t.Fatalf("execution %s, want failed", got)
	}
	if f.ran("b") != 1 || f.ran("c") != 0 {
		t.Fatalf("b ran %d times and c %d, want 1 and 0", f.ran("b"), f.ran("c"))
	}
	var c struct {
		Kind string `db:"kind"`
		Msg  string `db:"msg"`
		Vars int    `db:"vars"`
	}
	if err := h.db.Get(&c, `SELECT error->>'type' AS kind, error->>'message' AS msg, length(vars::text) AS vars
		FROM task_executions WHERE flow_execution_id = $1 AND task_name = 'c'`, exec); err != nil {
		t.Fatal(err)
	}
	if c.Kind != "limit_exceeded" || !strings.Contains(c.Msg, "past their size limit of 1000 bytes") ||
		!strings.Contains(c.Msg, "$tasks.name") || c.Vars > 100 {
		t.Fatalf("c's attempt: %+v", c)
	}
}

// TestStandInReadBack: the stand-in is recognised as PostgreSQL's jsonb gives it back, and real
// variables never are.
func TestStandInReadBack(t *testing.T) {
	if varsError([]byte(`{"too_large": 1234}`), 1000) == nil {
		t.Fatal("the stand-in read back from jsonb was not recognised")
	}
	if err := varsError([]byte(`{"input": {"too_large": 1}, "tasks": {}}`), 1000); err != nil {
		t.Fatalf("real variables taken for the stand-in: %v", err)
	}
}
