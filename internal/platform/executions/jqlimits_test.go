package executions_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestTenantJQIsBounded attacks a real server with jq programs that never end or grow without bound, as an
// app_user may write them: an edge condition, a transform and an e-mail template. Each fails its execution
// with limit_exceeded naming the limit, while the server stays ready, answers a stop at once, holds no
// database connection busy and keeps its memory.
func TestTenantJQIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	token := appUser(t, db)
	srv := testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t),
		"LOOPWORK_JQ_SHORT_TIME=3s", "LOOPWORK_JQ_MEMORY=64M")

	t.Run("edge condition that never ends", func(t *testing.T) {
		flow := saveFlow(t, srv.URL, token, `{"version": 1, "tasks": [
			{"name": "a", "type": "transform", "parameters": {"expression": "{n: 1}"}},
			{"name": "b", "type": "transform", "parameters": {"expression": "."}}],
			"edges": [{"source": "a", "target": "b", "condition": "reduce range(1e18) as $i (0; .) | . == 0"}]}`)
		stopped := startExec(t, srv.URL, token, flow)
		failed := startExec(t, srv.URL, token, flow)
		waitAttempt(t, db, stopped, "a")
		// While the conditions run: the server is ready, and no connection sits in a transaction.
		if st := get(t, srv.URL+"/health/readiness"); st != http.StatusOK {
			t.Fatalf("readiness answered %d while a condition ran", st)
		}
		t0 := time.Now()
		testkit.Call(t, srv.URL, token, "POST", "/api/flow-executions/"+stopped+"/stop", nil, nil)
		if took := time.Since(t0); took > time.Second {
			t.Fatalf("the stop took %s", took)
		}
		busy(t, db)
		e := waitFailed(t, srv.URL, token, failed, 20*time.Second)
		if e.Type != "limit_exceeded" || !strings.Contains(e.Message, "time limit of 3s") || !strings.Contains(e.Message, "a → b") {
			t.Fatalf("error %+v", e)
		}
		busy(t, db)
	})

	t.Run("transform that builds a huge value", func(t *testing.T) {
		before := srv.RSS()
		flow := saveFlow(t, srv.URL, token, `{"version": 1, "tasks": [
			{"name": "big", "type": "transform", "parameters": {"expression": "[range(1e9)] | length"}},
			{"name": "wide", "type": "transform", "parameters": {"expression": "def f: [., .]; 1 | f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f"}}],
			"edges": []}`)
		e := waitFailed(t, srv.URL, token, startExec(t, srv.URL, token, flow), 60*time.Second)
		if e.Type != "limit_exceeded" || !strings.Contains(e.Message, "memory limit of 64 MB") {
			t.Fatalf("error %+v", e)
		}
		if after := srv.RSS(); after-before > 100<<20 {
			t.Fatalf("the server's memory grew from %d MB to %d MB", before>>20, after>>20)
		}
	})

	t.Run("e-mail template that never ends", func(t *testing.T) {
		flow := saveFlow(t, srv.URL, token, `{"version": 1, "tasks": [
			{"name": "mail", "type": "email", "parameters": {"to": ["someone@example.com"],
				"subject": "{{ last(range(1e18)) }}", "body": "hello"}}], "edges": []}`)
		e := waitFailed(t, srv.URL, token, startExec(t, srv.URL, token, flow), 20*time.Second)
		if e.Type != "limit_exceeded" || !strings.Contains(e.Message, "subject: {{ last(range(1e18)) }}: the jq program passed its time limit of 3s") {
			t.Fatalf("error %+v", e)
		}
		if st := get(t, srv.URL+"/health/readiness"); st != http.StatusOK {
			t.Fatalf("readiness answered %d", st)
		}
	})
}

// appUser writes an organization with credits and an app_user with an API key, and returns the key.
func appUser(t *testing.T, db *sqlx.DB) string {
	t.Helper()
	org := testkit.SeedOrg(t, db, "crash")
	testkit.SeedUser(t, db, org, auth.RoleOrgAdmin, "admin@crash.test")
	token, _ := testkit.SeedUser(t, db, org, auth.RoleAppUser, "user@crash.test")
	return token
}

func saveFlow(t *testing.T, base, token, def string) string {
	t.Helper()
	var flow struct{ ID string }
	testkit.Call(t, base, token, "POST", "/api/flows", map[string]any{"display_name": "attack", "definition": json.RawMessage(def)}, &flow)
	return flow.ID
}

func startExec(t *testing.T, base, token, flow string) string {
	t.Helper()
	var x struct{ ID string }
	testkit.Call(t, base, token, "POST", "/api/flow-executions", map[string]any{"flow_id": flow, "input": map[string]any{}}, &x)
	return x.ID
}

type execError struct {
	Type, Message string
}

// waitFailed waits for the execution to fail and returns its error.
func waitFailed(t *testing.T, base, token, id string, within time.Duration) execError {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var x struct {
			Status string
			Error  *execError
		}
		testkit.Call(t, base, token, "GET", "/api/flow-executions/"+id, nil, &x)
		if x.Status == "failed" && x.Error != nil {
			return *x.Error
		}
		if time.Now().After(deadline) {
			t.Fatalf("the execution is %s after %s", x.Status, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitAttempt waits until the task's attempt has run (its condition is then being evaluated).
func waitAttempt(t *testing.T, db *sqlx.DB, exec, task string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var n int
		_ = db.Get(&n, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND task_name = $2 AND status = 'running'`, exec, task)
		if n > 0 {
			time.Sleep(200 * time.Millisecond) // past the transform itself, into its edge's condition
			return
		}
	}
	t.Fatal("the task never ran")
}

// busy fails the test when a connection of the server's database has been in a statement or a transaction
// for more than a second.
func busy(t *testing.T, db *sqlx.DB) {
	t.Helper()
	var stuck []string
	if err := db.Select(&stuck, `SELECT state || ': ' || left(query, 80) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND state NOT IN ('idle')
		  AND now() - state_change > interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if len(stuck) > 0 {
		t.Fatalf("connections busy: %v", stuck)
	}
}

func get(t *testing.T, url string) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestReviewedOutcomeConditionIsBounded: an edge condition that never ends, after a human review, runs
// in no transaction of the review's completion. Approving answers at once, no connection of the server
// sits in a transaction while the condition runs, and the review's task then fails with limit_exceeded
// as a task run by the engine does.
func TestReviewedOutcomeConditionIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	token := appUser(t, db)
	var user string
	if err := db.Get(&user, `SELECT id FROM users WHERE email = 'user@crash.test'`); err != nil {
		t.Fatal(err)
	}
	srv := testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), "LOOPWORK_JQ_SHORT_TIME=3s")
	flow := saveFlow(t, srv.URL, token, `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "{value: 1}"}},
		{"name": "review", "type": "human_review", "parameters": {"assigned_users": ["`+user+`"]}},
		{"name": "after", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "review"},
			{"source": "review", "target": "after", "condition": "reduce range(1e18) as $i (0; .) | . == 0"}]}`)
	exec := startExec(t, srv.URL, token, flow)
	var reviews struct {
		Tasks []struct{ ID string } `json:"human_review_tasks"`
	}
	for deadline := time.Now().Add(20 * time.Second); len(reviews.Tasks) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the review never opened")
		}
		testkit.Call(t, srv.URL, token, "GET", "/api/human-review-tasks?flow_execution_id="+exec, nil, &reviews)
	}

	t0 := time.Now()
	testkit.Call(t, srv.URL, token, "POST", "/api/human-review-tasks/"+reviews.Tasks[0].ID+"/complete",
		map[string]any{"review_result": true, "reviewed_output": map[string]any{"value": 2}}, nil)
	if took := time.Since(t0); took > time.Second {
		t.Fatalf("approving took %s", took)
	}
	// The condition runs for its 3 s: meanwhile no connection is in a transaction (or a statement) for
	// longer than a second.
	for _, at := range []time.Duration{1500 * time.Millisecond, 2500 * time.Millisecond} {
		time.Sleep(time.Until(t0.Add(at)))
		busy(t, db)
	}
	e := waitFailed(t, srv.URL, token, exec, 20*time.Second)
	if e.Type != "limit_exceeded" || !strings.Contains(e.Message, "time limit of 3s") || !strings.Contains(e.Message, "review → after") {
		t.Fatalf("error %+v", e)
	}
	var attempt struct {
		Status string `db:"status"`
		Type   string `db:"type"`
	}
	if err := db.Get(&attempt, `SELECT status, coalesce(error->>'type', '') AS type FROM task_executions
		WHERE flow_execution_id = $1 AND task_name = 'review'`, exec); err != nil {
		t.Fatal(err)
	}
	if attempt.Status != "failed" || attempt.Type != "limit_exceeded" {
		t.Fatalf("the review's attempt: %+v", attempt)
	}
	busy(t, db)
}
