package run_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// slowUpstream holds every request until released, counting those it holds.
type slowUpstream struct {
	mu          sync.Mutex
	held, most  int
	seen        int
	release     chan struct{}
	releaseOnce sync.Once
}

func (s *slowUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.held++
	s.seen++
	s.most = max(s.most, s.held)
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.held--; s.mu.Unlock() }()
	select {
	case <-s.release:
	case <-time.After(10 * time.Second):
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"ok": true}`))
}

func (s *slowUpstream) counts() (held, most, seen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.most, s.seen
}

// seedOrg writes an organization with credits and its org_admin, and returns the admin's API key.
func seedOrg(t *testing.T, db *sqlx.DB, name string) string {
	t.Helper()
	token, _ := testkit.SeedUser(t, db, testkit.SeedOrg(t, db, name), auth.RoleOrgAdmin, "admin@"+name+".test")
	return token
}

func createFlow(t *testing.T, base, token, definition string) string {
	var f struct{ ID string }
	testkit.Call(t, base, token, "POST", "/api/flows", json.RawMessage(`{"display_name": "f", "definition": `+definition+`}`), &f)
	return f.ID
}

func startExecution(t *testing.T, base, token, flow string) string {
	var x struct{ ID string }
	testkit.Call(t, base, token, "POST", "/api/flow-executions", map[string]any{"flow_id": flow, "input": map[string]any{}}, &x)
	return x.ID
}

func status(t *testing.T, base, token, exec string) string {
	var x struct{ Status string }
	testkit.Call(t, base, token, "GET", "/api/flow-executions/"+exec, nil, &x)
	return x.Status
}

// TestOneOrganizationCannotStarveAnother runs a real server with four task workers. Organization A
// starts three times as many slow HTTP tasks as there are workers (each held ten seconds by the
// upstream); it holds its share of the workers (two) and the rest of its attempts wait. Organization B
// then starts one quick transform, which must complete within a second of being started; and all of
// A's tasks complete once the upstream answers.
func TestOneOrganizationCannotStarveAnother(t *testing.T) {
	t.Parallel()
	up := &slowUpstream{release: make(chan struct{})}
	srv := httptest.NewServer(up)
	defer srv.Close()
	defer up.releaseOnce.Do(func() { close(up.release) })
	db := testkit.DB(t)
	const workers, share, flood = 4, 2, 12
	p := testkit.Serve(t, testkit.BuildServer(t), testkit.DSN(t, db), testkit.FreePort(t),
		fmt.Sprintf("LOOPWORK_TASK_WORKERS=%d", workers), "LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32")
	a, b := seedOrg(t, db, "flooder"), seedOrg(t, db, "quiet")

	slow := createFlow(t, p.URL, a, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
		"timeout_seconds": 60, "parameters": {"url": %q}}], "edges": []}`, srv.URL))
	var floods []string
	for range flood {
		floods = append(floods, startExecution(t, p.URL, a, slow))
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if held, _, _ := up.counts(); held == share {
			break
		}
		if time.Now().After(deadline) {
			held, _, _ := up.counts()
			t.Fatalf("A's tasks hold %d requests upstream, want its share of %d", held, share)
		}
		time.Sleep(10 * time.Millisecond)
	}

	quick := createFlow(t, p.URL, b, `{"version": 1, "tasks": [{"name": "double", "type": "transform",
		"parameters": {"expression": "{n: 2}"}}], "edges": []}`)
	begin := time.Now()
	x := startExecution(t, p.URL, b, quick)
	for status(t, p.URL, b, x) != "completed" {
		if time.Since(begin) > 5*time.Second {
			t.Fatalf("B's quick task is still %s after 5 s", status(t, p.URL, b, x))
		}
		time.Sleep(5 * time.Millisecond)
	}
	latency := time.Since(begin)
	held, most, _ := up.counts()
	t.Logf("B's transform completed %v after its start request, while A held %d of %d workers with %d more "+
		"of its tasks waiting", latency.Round(time.Millisecond), held, workers, flood-held)
	if latency > time.Second {
		t.Fatalf("B's quick task took %v to complete behind A's slow ones; want under 1 s", latency)
	}
	if most > share {
		t.Fatalf("A held %d workers at once, more than its share of %d", most, share)
	}

	up.releaseOnce.Do(func() { close(up.release) })
	deadline = time.Now().Add(60 * time.Second)
	for _, f := range floods {
		for s := status(t, p.URL, a, f); s != "completed"; s = status(t, p.URL, a, f) {
			if s == "failed" || time.Now().After(deadline) {
				t.Fatalf("A's execution %s is %s", f, s)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, _, seen := up.counts(); seen != flood {
		t.Fatalf("the upstream saw %d calls for %d tasks: each runs exactly once", seen, flood)
	}
}

// TestRescuedFloodLeavesRiverFree: the server running organization A's flood is killed; a new one
// rescues A's attempts through River once their leases end. A's rescued attempts beyond its share wait
// in process, not in River's workers (River counts no more of A's jobs running than A's share), B's
// transform still completes within a second, and each of A's tasks completes with the one attempt it
// had: rescued exactly once.
func TestRescuedFloodLeavesRiverFree(t *testing.T) {
	t.Parallel()
	up := &slowUpstream{release: make(chan struct{})}
	srv := httptest.NewServer(up)
	defer srv.Close()
	defer up.releaseOnce.Do(func() { close(up.release) })
	db := testkit.DB(t)
	const share, flood = 2, 12
	bin, dsn := testkit.BuildServer(t), testkit.DSN(t, db)
	settings := []string{"LOOPWORK_TASK_WORKERS=4", "LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32"}
	first := testkit.Serve(t, bin, dsn, testkit.FreePort(t), settings...)
	a, b := seedOrg(t, db, "flooder"), seedOrg(t, db, "quiet")
	slow := createFlow(t, first.URL, a, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
		"timeout_seconds": 60, "parameters": {"url": %q}}], "edges": []}`, srv.URL))
	var floods []string
	for range flood {
		floods = append(floods, startExecution(t, first.URL, a, slow))
	}
	waitHeld := func(want int) {
		deadline := time.Now().Add(30 * time.Second)
		for held, _, _ := up.counts(); held != want; held, _, _ = up.counts() {
			if time.Now().After(deadline) {
				t.Fatalf("the upstream holds %d of A's requests, want %d", held, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitHeld(share)
	first.Kill()
	waitHeld(0)

	second := testkit.Serve(t, bin, dsn, testkit.FreePort(t), settings...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var rescued int
		if err := db.Get(&rescued, `SELECT count(*) FROM river_job WHERE kind = 'flow_task' AND args ? 'org'`); err != nil {
			t.Fatal(err)
		}
		if held, _, _ := up.counts(); rescued >= flood && held == share {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of A's attempts were rescued through River", rescued)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// River marks a job done a moment after its worker returns; those done settle within moments, while
	// a job whose worker waited for an executor would stay running until the upstream answered.
	var inRiver int
	deadline = time.Now().Add(5 * time.Second)
	for {
		if err := db.Get(&inRiver, `SELECT count(*) FROM river_job WHERE kind = 'flow_task' AND state = 'running'`); err != nil {
			t.Fatal(err)
		}
		if inRiver <= share {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of A's jobs hold River's workers, more than A's share of %d", inRiver, share)
		}
		time.Sleep(20 * time.Millisecond)
	}

	quick := createFlow(t, second.URL, b, `{"version": 1, "tasks": [{"name": "double", "type": "transform",
		"parameters": {"expression": "{n: 2}"}}], "edges": []}`)
	begin := time.Now()
	x := startExecution(t, second.URL, b, quick)
	for status(t, second.URL, b, x) != "completed" {
		if time.Since(begin) > 5*time.Second {
			t.Fatal("B's quick task is still not done after 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	latency := time.Since(begin)
	t.Logf("after the rescue, B's transform completed %v after its start request; %d of A's jobs held River's workers",
		latency.Round(time.Millisecond), inRiver)
	if latency > time.Second {
		t.Fatalf("B's quick task took %v; want under 1 s", latency)
	}

	up.releaseOnce.Do(func() { close(up.release) })
	deadline = time.Now().Add(60 * time.Second)
	for _, f := range floods {
		for s := status(t, second.URL, a, f); s != "completed"; s = status(t, second.URL, a, f) {
			if s == "failed" || time.Now().After(deadline) {
				t.Fatalf("A's execution %s is %s", f, s)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	var attempts int
	if err := db.Get(&attempts, `SELECT count(*) FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id
		WHERE x.flow_id = $1`, slow); err != nil {
		t.Fatal(err)
	}
	if attempts != flood {
		t.Fatalf("%d attempts for %d tasks: a rescued attempt is the same attempt, run once more", attempts, flood)
	}
}
