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

// newSlowUpstream serves a slowUpstream for the test, released (and closed) when it ends.
func newSlowUpstream(t *testing.T) (*slowUpstream, string) {
	up := &slowUpstream{release: make(chan struct{})}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	t.Cleanup(up.open)
	return up, srv.URL
}

// open answers every request held and every later one.
func (s *slowUpstream) open() { s.releaseOnce.Do(func() { close(s.release) }) }

// waitHeld waits until the upstream holds want requests.
func (s *slowUpstream) waitHeld(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for held, _, _ := s.counts(); held != want; held, _, _ = s.counts() {
		if time.Now().After(deadline) {
			t.Fatalf("the upstream holds %d of A's requests, want %d", held, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// flood saves organization token's flow of one slow call to url and starts it n times.
func flood(t *testing.T, base, token, url string, n int) (flow string, execs []string) {
	flow = createFlow(t, base, token, fmt.Sprintf(`{"version": 1, "tasks": [{"name": "call", "type": "http_request",
		"timeout_seconds": 60, "parameters": {"url": %q}}], "edges": []}`, url))
	for range n {
		execs = append(execs, startExecution(t, base, token, flow))
	}
	return flow, execs
}

// quickTask starts a one-transform flow of organization token and answers how long after its start
// request it completed.
// quickBound is how long B's quick task may take. Alone it takes about 50 ms; behind A's slow tasks it
// would wait for the upstream, which holds each call ten seconds or until the test opens it, afterwards
// (quickTask gives up after 5 s). On a 2-core machine running the whole suite beside it, it has taken
// 1.0–1.1 s: the bound tells waiting behind A from a busy machine, not the machine's speed.
const quickBound = 3 * time.Second

func quickTask(t *testing.T, base, token string) time.Duration {
	t.Helper()
	quick := createFlow(t, base, token, `{"version": 1, "tasks": [{"name": "double", "type": "transform",
		"parameters": {"expression": "{n: 2}"}}], "edges": []}`)
	begin := time.Now()
	x := startExecution(t, base, token, quick)
	for s := status(t, base, token, x); s != "completed"; s = status(t, base, token, x) {
		if time.Since(begin) > 5*time.Second {
			t.Fatalf("B's quick task is still %s after 5 s", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(begin)
}

// waitCompleted waits until every one of execs is completed, failing on one that failed.
func waitCompleted(t *testing.T, base, token string, execs []string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for _, f := range execs {
		for s := status(t, base, token, f); s != "completed"; s = status(t, base, token, f) {
			if s == "failed" || time.Now().After(deadline) {
				t.Fatalf("A's execution %s is %s", f, s)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
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
// then starts one quick transform, which must complete within quickBound of being started; and all of
// A's tasks complete once the upstream answers.
func TestOneOrganizationCannotStarveAnother(t *testing.T) {
	t.Parallel()
	up, url := newSlowUpstream(t)
	db := testkit.DB(t)
	const workers, share, n = 4, 2, 12
	p := testkit.Serve(t, testkit.BuildServer(t), testkit.DSN(t, db), testkit.FreePort(t),
		fmt.Sprintf("LOOPWORK_TASK_WORKERS=%d", workers), "LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32")
	a, b := seedOrg(t, db, "flooder"), seedOrg(t, db, "quiet")
	_, floods := flood(t, p.URL, a, url, n)
	up.waitHeld(t, share)

	latency := quickTask(t, p.URL, b)
	held, most, _ := up.counts()
	t.Logf("B's transform completed %v after its start request, while A held %d of %d workers with %d more "+
		"of its tasks waiting", latency.Round(time.Millisecond), held, workers, n-held)
	if latency > quickBound {
		t.Fatalf("B's quick task took %v to complete behind A's slow ones; want under %v", latency, quickBound)
	}
	if most > share {
		t.Fatalf("A held %d workers at once, more than its share of %d", most, share)
	}

	up.open()
	waitCompleted(t, p.URL, a, floods)
	if _, _, seen := up.counts(); seen != n {
		t.Fatalf("the upstream saw %d calls for %d tasks: each runs exactly once", seen, n)
	}
}

// TestRescuedFloodLeavesRiverFree: the server running organization A's flood is killed; a new one
// rescues A's attempts through River once their leases end. A's rescued attempts beyond its share wait
// in process, not in River's workers (River counts no more of A's jobs running than A's share), B's
// transform still completes within quickBound, and each of A's tasks completes with the one attempt it
// had: rescued exactly once.
func TestRescuedFloodLeavesRiverFree(t *testing.T) {
	t.Parallel()
	up, url := newSlowUpstream(t)
	db := testkit.DB(t)
	const share, n = 2, 12
	bin, dsn := testkit.BuildServer(t), testkit.DSN(t, db)
	settings := []string{"LOOPWORK_TASK_WORKERS=4", "LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32"}
	first := testkit.Serve(t, bin, dsn, testkit.FreePort(t), settings...)
	a, b := seedOrg(t, db, "flooder"), seedOrg(t, db, "quiet")
	slow, floods := flood(t, first.URL, a, url, n)
	up.waitHeld(t, share)
	first.Kill()
	up.waitHeld(t, 0)

	second := testkit.Serve(t, bin, dsn, testkit.FreePort(t), settings...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var rescued int
		if err := db.Get(&rescued, `SELECT count(*) FROM river_job WHERE kind = 'flow_task' AND args ? 'org'`); err != nil {
			t.Fatal(err)
		}
		if held, _, _ := up.counts(); rescued >= n && held == share {
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

	latency := quickTask(t, second.URL, b)
	t.Logf("after the rescue, B's transform completed %v after its start request; %d of A's jobs held River's workers",
		latency.Round(time.Millisecond), inRiver)
	if latency > quickBound {
		t.Fatalf("B's quick task took %v; want under %v", latency, quickBound)
	}

	up.open()
	waitCompleted(t, second.URL, a, floods)
	var attempts int
	if err := db.Get(&attempts, `SELECT count(*) FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id
		WHERE x.flow_id = $1`, slow); err != nil {
		t.Fatal(err)
	}
	if attempts != n {
		t.Fatalf("%d attempts for %d tasks: a rescued attempt is the same attempt, run once more", attempts, n)
	}
}
