package executors_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

// TestRetriesWaitTheirBackoff: each retry of a failing task is a new attempt that starts after the
// task's backoff, doubled per attempt; when none is left the execution fails with the last error.
func TestRetriesWaitTheirBackoff(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	env := testkit.NewEnv(t, testkit.WithOutboundClient(allowLoopback()))
	x := runFlow(t, env, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
		"parameters": {"url": %q}, "retry": {"max_attempts": 3, "backoff_seconds": 0.4}}], "edges": []}`, srv.URL), map[string]any{})
	if s := executionStatus(t, env, x); s != "failed" {
		t.Fatalf("execution %s, want failed", s)
	}
	var starts []time.Time
	if err := env.DB.Select(&starts, `SELECT started_at FROM task_executions WHERE flow_execution_id = $1
		ORDER BY task_execution_idx`, x); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 3 {
		t.Fatalf("%d attempts, want 3", len(starts))
	}
	// The backoff counts from the failure, which comes after the start: the gaps are at least it.
	for i, want := range []time.Duration{400 * time.Millisecond, 800 * time.Millisecond} {
		if gap := starts[i+1].Sub(starts[i]); gap < want {
			t.Errorf("attempt %d started %s after attempt %d, want at least %s", i+1, gap, i, want)
		}
	}
}

// TestAttemptsTimeOut: an attempt that runs past the task's timeout_seconds fails with an error of type
// timeout, and the next attempt runs.
func TestAttemptsTimeOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	env := testkit.NewEnv(t, testkit.WithOutboundClient(allowLoopback()))
	began := time.Now()
	x := runFlow(t, env, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
		"parameters": {"url": %q}, "timeout_seconds": 1, "retry": {"max_attempts": 2}}], "edges": []}`, srv.URL), map[string]any{})
	atts := attemptsOf(t, env, x, "call")
	if s := executionStatus(t, env, x); s != "failed" || len(atts) != 2 {
		t.Fatalf("execution %s with %d attempts, want failed after 2", s, len(atts))
	}
	for _, a := range atts {
		var e struct{ Message, Type string }
		if err := json.Unmarshal(a.Error, &e); err != nil || e.Type != "timeout" || e.Message != "the attempt took longer than 1s" {
			t.Fatalf("attempt %d error %s, want a timeout", a.Idx, a.Error)
		}
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("two 1 s attempts took %s", took)
	}
}

// TestTasksThatCannotRunFailSayingSo: an llm task naming a model the server does not have fails at
// once (no retry) with a message that says why, and so does its execution.
func TestTasksThatCannotRunFailSayingSo(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	for typ, params := range map[string]string{
		"llm": `{"prompt": "Hi", "model": "small"}`,
	} {
		x := runFlow(t, env, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "step", "type": %q, "parameters": %s,
			"retry": {"max_attempts": 3}}], "edges": []}`, typ, params), map[string]any{})
		atts := attemptsOf(t, env, x, "step")
		want := `model: the server has no model "small" (GET /api/models lists them)`
		var e struct{ Message string }
		if len(atts) != 1 || json.Unmarshal(atts[0].Error, &e) != nil || e.Message != want {
			t.Fatalf("%s: attempts %+v, want one failing with %q", typ, atts, want)
		}
		var failure struct{ Task, Message string }
		var raw []byte
		if err := env.DB.Get(&raw, `SELECT error FROM flow_executions WHERE id = $1 AND status = 'failed'`, x); err != nil ||
			json.Unmarshal(raw, &failure) != nil || failure.Task != "step" || failure.Message != want {
			t.Fatalf("%s: execution error %s (%v)", typ, raw, err)
		}
	}
}
