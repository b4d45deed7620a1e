package executions_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLongChainsSurviveKill9: executions of a chain of transforms, whose rounds are each one call of
// engine_chain_round (the line of steps run ahead and the next task's attempt), are killed mid-way with
// SIGKILL; once the server is started again every execution completes, each task with exactly one
// attempt, completed, and the chain's output is its input counted up once a task.
func TestLongChainsSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	// The function's calls are counted, to show that the rounds went through it.
	var name string
	if err := db.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	_, trackErr := db.Exec(`ALTER DATABASE ` + pq.QuoteIdentifier(name) + ` SET track_functions = 'pl'`)
	dsn := testkit.DSN(t, db)
	token := testkit.SeedCaller(t, db)
	addr := testkit.FreePort(t)
	first := testkit.Serve(t, bin, dsn, addr)

	const n, length = 2, 200
	tasks, edges := make([]string, length), make([]string, 0, length)
	for i := range tasks {
		tasks[i] = fmt.Sprintf(`{"name": "t%03d", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}}`, i)
		if i > 0 {
			edges = append(edges, fmt.Sprintf(`{"source": "t%03d", "target": "t%03d"}`, i-1, i))
		}
	}
	var flow struct{ ID string }
	testkit.Call(t, first.URL, token, "POST", "/api/flows", json.RawMessage(`{"display_name": "long chain", "definition": {"version": 1,
		"tasks": [`+strings.Join(tasks, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}}`), &flow)
	for i := 0; i < n; i++ {
		testkit.Call(t, first.URL, token, "POST", "/api/flow-executions", map[string]any{"flow_id": flow.ID, "input": map[string]any{"n": i}}, nil)
	}
	// Killed once a fifth of the tasks are done, in the middle of the chains.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
		var done int
		if err := db.Get(&done, `SELECT count(*) FROM execution_tasks WHERE state = 'completed'`); err != nil {
			t.Fatal(err)
		}
		if done >= n*length/5 || time.Now().After(deadline) {
			break
		}
	}
	first.Kill()
	var mid int
	if err := db.Get(&mid, `SELECT count(*) FROM flow_executions x WHERE (SELECT count(*) FROM execution_tasks k
		WHERE k.flow_execution_id = x.id AND k.state = 'completed') BETWEEN 1 AND $1`, length-1); err != nil {
		t.Fatal(err)
	}
	if mid == 0 {
		t.Fatal("no execution was in the middle of its chain at the kill: nothing was tested")
	}

	testkit.Serve(t, bin, dsn, addr)
	waitEachOnce(t, db, n, 2*time.Minute)
	var wrong int
	if err := db.Get(&wrong, `SELECT count(*) FROM flow_executions
		WHERE (output->>'n')::int IS DISTINCT FROM (input->>'n')::int + $1`, length); err != nil || wrong != 0 {
		t.Fatalf("%d executions computed a wrong output (%v)", wrong, err)
	}
	if trackErr != nil {
		t.Logf("the function's calls are not counted here (%v)", trackErr)
		return
	}
	var calls int
	for deadline := time.Now().Add(10 * time.Second); calls == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := db.Get(&calls, `SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions WHERE funcname = 'engine_chain_round'`); err != nil {
			t.Fatal(err)
		}
	}
	if calls == 0 {
		t.Fatal("no round of the chains was one call of engine_chain_round")
	}
	t.Logf("%d of %d executions were in the middle of their chain at the kill; all completed after the restart (engine_chain_round: %d calls in the statistics)",
		mid, n, calls)
}
