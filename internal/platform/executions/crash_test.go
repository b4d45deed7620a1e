package executions_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
)

// chainFlow is four tasks, a one-second delay among them, so that executions are mid-way at any moment.
const chainFlow = `{"display_name": "chain", "definition": {"version": 1, "tasks": [
	{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
	{"name": "b", "type": "delay", "parameters": {"seconds": 1}},
	{"name": "c", "type": "transform", "parameters": {"expression": "{n: (.a.n * 10)}"}},
	{"name": "d", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}}],
	"edges": [{"source": "a", "target": "b"}, {"source": "a", "target": "c"}, {"source": "b", "target": "c"}, {"source": "c", "target": "d"}]}}`

// startMany starts n executions of the chain flow and returns their ids.
func startMany(t *testing.T, base, token string, n int) []string {
	t.Helper()
	var flow struct{ ID string }
	testkit.Call(t, base, token, "POST", "/api/flows", json.RawMessage(chainFlow), &flow)
	ids := make([]string, n)
	for i := range ids {
		var x struct{ ID string }
		testkit.Call(t, base, token, "POST", "/api/flow-executions", map[string]any{"flow_id": flow.ID, "input": map[string]any{"n": i}}, &x)
		ids[i] = x.ID
	}
	return ids
}

// waitAllDone waits until every execution of the database is completed, and checks each one ran every
// task exactly once to completion and computed what the chain flow should.
func waitAllDone(t *testing.T, db *sqlx.DB, n int, within time.Duration) {
	t.Helper()
	waitEachOnce(t, db, n, within)
	var wrong int
	if err := db.Get(&wrong, `SELECT count(*) FROM flow_executions x
		WHERE (x.output->>'n')::int <> ((x.input->>'n')::int + 1) * 10 + 1`); err != nil || wrong != 0 {
		t.Fatalf("%d executions computed a wrong output (%v)", wrong, err)
	}
}

// waitEachOnce waits until the database's n executions are completed, and checks each one completed
// every task by exactly one attempt.
func waitEachOnce(t *testing.T, db *sqlx.DB, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var done int
		if err := db.Get(&done, `SELECT count(*) FROM flow_executions WHERE status = 'completed'`); err != nil {
			t.Fatal(err)
		}
		if done == n {
			break
		}
		if time.Now().After(deadline) {
			var states, attempts, jobs, tasks []string
			_ = db.Select(&tasks, `SELECT x.tasks_left || ' ' || k.task_name || ':' || k.state || ' waits ' || k.waiting_on
				|| ' held ' || k.held || ' attempts ' || k.attempts || ' done ' || (SELECT count(*) FROM task_executions t
				WHERE t.flow_execution_id = k.flow_execution_id AND t.task_name = k.task_name AND t.status = 'completed')
				FROM execution_tasks k JOIN flow_executions x ON x.id = k.flow_execution_id
				WHERE x.status <> 'completed' ORDER BY x.id, k.task_name LIMIT 40`)
			_ = db.Select(&states, `SELECT status || ' ' || count(*) FROM flow_executions GROUP BY status`)
			_ = db.Select(&attempts, `SELECT t.task_name || t.task_execution_idx || ':' || t.status || ' lease ' || coalesce((t.timeout_at - now())::text, '-')
				|| ' wake ' || coalesce((t.wake_at - now())::text, '-')
				FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id WHERE x.status <> 'completed'
				ORDER BY x.id, t.task_name LIMIT 40`)
			var sweeps []string
			_ = db.Select(&sweeps, `SELECT state || ' ' || attempt || ' ' || coalesce(errors::text, '') FROM river_job WHERE kind = 'engine_sweep' ORDER BY id DESC LIMIT 5`)
			t.Logf("sweeps: %v", sweeps)
			_ = db.Select(&jobs, `SELECT j.state || ' ' || (j.args->>'task') || ' ' || coalesce(j.args->>'resume', '') || ' ' || coalesce(j.args->>'stuck', '') || ' ' || j.attempt
				FROM river_job j JOIN flow_executions x ON x.id = (j.args->>'execution')::uuid
				WHERE j.kind = 'flow_task' AND x.status <> 'completed' ORDER BY j.id LIMIT 40`)
			t.Fatalf("%d of %d executions completed after %s: %s\nunfinished attempts: %v\njobs: %v\ntasks: %v", done, n, within,
				strings.Join(states, ", "), attempts, jobs, tasks)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var bad []string
	if err := db.Select(&bad, `SELECT x.id::text || ' ' || t.task_name || ' ' || t.state || ' ' || count(*) FILTER (WHERE a.status = 'completed')
		FROM flow_executions x JOIN execution_tasks t ON t.flow_execution_id = x.id
		LEFT JOIN task_executions a ON a.flow_execution_id = x.id AND a.task_name = t.task_name
		GROUP BY x.id, t.task_name, t.state HAVING count(*) FILTER (WHERE a.status = 'completed') <> 1
		   OR count(*) FILTER (WHERE a.status NOT IN ('completed')) > 0 OR t.state <> 'completed'`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("tasks not completed exactly once: %v", bad)
	}
}

// TestSurvivesKill9: executions running when the server is killed with SIGKILL all complete once it is
// started again, each task exactly once.
func TestSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	dsn := testkit.DSN(t, db)
	token := testkit.SeedCaller(t, db)
	addr := testkit.FreePort(t)
	first := testkit.Serve(t, bin, dsn, addr)
	const n = 40
	startMany(t, first.URL, token, n)
	time.Sleep(700 * time.Millisecond)
	var mid int
	_ = db.Get(&mid, `SELECT count(*) FROM flow_executions WHERE status <> 'completed'`)
	first.Kill()
	if mid == 0 {
		t.Fatal("every execution was done before the kill: nothing was tested")
	}
	// The delays waiting at the kill are data: the restart keeps their wake times, it does not start
	// the waits over.
	var waiting []struct {
		Exec string    `db:"flow_execution_id"`
		Wake time.Time `db:"wake_at"`
	}
	if err := db.Select(&waiting, `SELECT flow_execution_id, wake_at FROM task_executions
		WHERE task_name = 'b' AND status = 'running' AND wake_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	testkit.Serve(t, bin, dsn, addr)
	waitAllDone(t, db, n, 2*time.Minute)
	for _, w := range waiting {
		var wake, done time.Time
		if err := db.QueryRow(`SELECT wake_at, completed_at FROM task_executions WHERE flow_execution_id = $1
			AND task_name = 'b' AND status = 'completed'`, w.Exec).Scan(&wake, &done); err != nil {
			t.Fatal(err)
		}
		if !wake.Equal(w.Wake) || done.Before(wake) {
			t.Fatalf("a delay waiting at the kill until %s woke at %s, completed at %s", w.Wake, wake, done)
		}
	}
	t.Logf("%d delays were waiting at the kill; each kept its wake time", len(waiting))
	t.Logf("%d of %d executions were unfinished at the kill; all completed after the restart", mid, n)
}

// TestTwoReplicasShareTheWork: two servers on one database both run tasks of the same executions.
func TestTwoReplicasShareTheWork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	dsn := testkit.DSN(t, db)
	token := testkit.SeedCaller(t, db)
	one := testkit.Serve(t, bin, dsn, testkit.FreePort(t))
	testkit.Serve(t, bin, dsn, testkit.FreePort(t))
	const n = 40
	startMany(t, one.URL, token, n)
	waitAllDone(t, db, n, 2*time.Minute)
	var workers []string
	if err := db.Select(&workers, `SELECT DISTINCT attempted_by[array_upper(attempted_by, 1)] FROM river_job WHERE kind = 'flow_task'`); err != nil {
		t.Fatal(err)
	}
	if len(workers) != 2 {
		t.Fatalf("tasks were run by %d servers (%v), want both", len(workers), workers)
	}
}
