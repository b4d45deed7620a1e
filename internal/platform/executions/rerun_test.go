package executions_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestReexecuteOnUpdate: with reexecute_on_update, saving a new version moves finished executions to
// it and runs again the changed task and what follows it, keeping the unchanged task's result; new
// attempts take the next index.
func TestReexecuteOnUpdate(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	chain := func(step string) string {
		return `{"version": 1, "tasks": [
			{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
			{"name": "b", "type": "transform", "parameters": {"expression": "{n: (.n ` + step + `)}"}},
			{"name": "c", "type": "transform", "parameters": {"expression": "{n: (.n + 100)}"}}],
			"edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]}`
	}
	flow := testkit.NewFlowSeenBy(t, user, chain("* 2"), platformapi.Organization)
	x := start(t, user, flow, map[string]any{"n": 1})
	got := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted)
	if out, _ := got.Output.(map[string]any); out["n"] != 104.0 { // ((1+1)*2)+100
		t.Fatalf("first run gave %v", got.Output)
	}
	yes := true
	res, err := user.API.UpdateFlowWithResponse(ctx, flow, platformapi.FlowUpdateRequest{Definition: json.RawMessage(chain("* 10")),
		Settings: &platformapi.FlowSettings{ReexecuteOnUpdate: &yes}})
	testkit.Expect(t, res, err, http.StatusOK)
	again := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
	if again.FlowVersion != 2 || again.Status != platformapi.ExecutionStatusCompleted {
		t.Fatalf("after the update: %+v", again)
	}
	if out, _ := again.Output.(map[string]any); out["n"] != 120.0 { // ((1+1)*10)+100
		t.Fatalf("second run gave %v", again.Output)
	}
	atts := attempts(t, env, x.Id)
	if len(atts) != 5 || atts["a#0"].Status != "completed" || atts["b#1"].Status != "completed" || atts["c#1"].Status != "completed" {
		t.Fatalf("attempts after the re-run: %v (a kept, b and c run again as attempt 1)", atts)
	}
}

// TestRerunDecidesConditionsAfterSaving: a conditional edge from a task whose result the re-run keeps into a
// task it runs again is evaluated once the version's save has committed, never inside it: the task after a
// condition that holds runs; one that never ends answers the save at once, passes its limit outside the
// transaction, and does not hold.
func TestRerunDecidesConditionsAfterSaving(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	branch := func(cond, step string) string {
		return `{"version": 1, "tasks": [
			{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
			{"name": "b", "type": "transform", "parameters": {"expression": "{n: (.n ` + step + `)}"}}],
			"edges": [{"source": "a", "target": "b", "condition": "` + cond + `"}]}`
	}
	flow := testkit.NewFlowSeenBy(t, user, branch(".n > 0", "* 2"), platformapi.Organization)
	x := start(t, user, flow, map[string]any{"n": 1})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted)

	update(t, user, flow, branch(".n > 1", "* 10"), true)
	again := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
	if out, _ := again.Output.(map[string]any); again.FlowVersion != 2 || out["n"] != 20.0 {
		t.Fatalf("after the update: %+v", again)
	}
	if atts := attempts(t, env, x.Id); len(atts) != 3 || atts["a#0"].Status != "completed" || atts["b#1"].Status != "completed" {
		t.Fatalf("attempts after the re-run: %v (a kept, b run again)", atts)
	}

	t0 := time.Now()
	update(t, user, flow, branch("reduce range(1e18) as $i (0; .) | . == 0", "* 100"), true)
	if took := time.Since(t0); took > 500*time.Millisecond {
		t.Fatalf("saving the version took %s", took)
	}
	third := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
	var b string
	if err := env.DB.Get(&b, `SELECT state FROM execution_tasks WHERE flow_execution_id = $1 AND task_name = 'b'`, x.Id); err != nil {
		t.Fatal(err)
	}
	if third.FlowVersion != 3 || third.Status != platformapi.ExecutionStatusCompleted || b != "skipped" {
		t.Fatalf("after the third version: %+v, b %s", third, b)
	}
}
