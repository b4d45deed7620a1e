package executors_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/loopwork/loopwork/internal/testkit"
)

// TestHTTPRequestInAFlow: a 503 is retried per the task's retry and the next attempt, with a key of
// its own, completes the execution; a 404 fails the task at once although retries remain.
func TestHTTPRequestInAFlow(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		n := len(keys)
		mu.Unlock()
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		if n == 1 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	env := testkit.NewEnv(t, testkit.WithOutboundClient(allowLoopback()))
	flow := func(path string) string {
		return fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
			"parameters": {"url": %q}, "retry": {"max_attempts": 3, "backoff_seconds": 0}}], "edges": []}`, srv.URL+path)
	}

	x := runFlow(t, env, flow("/ok"), map[string]any{})
	atts := attemptsOf(t, env, x, "call")
	if s := executionStatus(t, env, x); s != "completed" || len(atts) != 2 || atts[0].Status != "failed" ||
		atts[1].Status != "completed" {
		t.Fatalf("execution %s, attempts %+v", s, atts)
	}
	var out struct {
		Status int            `json:"status"`
		Body   map[string]any `json:"body"`
	}
	if err := json.Unmarshal(atts[1].Output, &out); err != nil || out.Status != 200 || out.Body["ok"] != true {
		t.Fatalf("output %s", atts[1].Output)
	}
	want := []string{x.String() + "/call/0", x.String() + "/call/1"}
	if len(keys) != 2 || keys[0] != want[0] || keys[1] != want[1] {
		t.Fatalf("Idempotency-Keys %v, want %v", keys, want)
	}

	x = runFlow(t, env, flow("/missing"), map[string]any{})
	atts = attemptsOf(t, env, x, "call")
	if s := executionStatus(t, env, x); s != "failed" || len(atts) != 1 || atts[0].Status != "failed" {
		t.Fatalf("execution %s, attempts %+v: a 404 is not retried", s, atts)
	}
	var e map[string]any
	if json.Unmarshal(atts[0].Error, &e) != nil || e["message"] != "the server answered 404 Not Found: 404 page not found" {
		t.Fatalf("error %s", atts[0].Error)
	}
}
