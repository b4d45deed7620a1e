package executions_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// divide is a flow a → b where b fails (a jq error, not retried) when the input's d is 0.
func divide(bExpression string) string {
	return `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "{n: .n, d: .d}"}},
		{"name": "b", "type": "transform", "parameters": {"expression": "` + bExpression + `"}}],
		"edges": [{"source": "a", "target": "b"}]}`
}

func update(t *testing.T, c *testkit.Caller, flow uuid.UUID, definition string, reexecute bool) {
	t.Helper()
	res, err := c.API.UpdateFlowWithResponse(ctx, flow, platformapi.FlowUpdateRequest{Definition: json.RawMessage(definition),
		Settings: &platformapi.FlowSettings{ReexecuteOnUpdate: &reexecute}})
	testkit.Expect(t, res, err, http.StatusOK)
}

func statusOf(t *testing.T, env *testkit.Env, exec uuid.UUID) (status string, version int) {
	t.Helper()
	var row struct {
		Status  string `db:"status"`
		Version int    `db:"flow_version"`
	}
	if err := env.DB.Get(&row, `SELECT status, flow_version FROM flow_executions WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	return row.Status, row.Version
}

// TestFailedExecutionsRerun: with reexecute_on_update a failed execution moves to the new version and
// runs again the task that failed (its next attempt) while keeping the one that completed.
func TestFailedExecutionsRerun(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, divide(`{q: (.n / .d)}`), platformapi.Organization)
	x := start(t, user, flow, map[string]any{"n": 6, "d": 0})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusFailed)
	update(t, user, flow, divide(`{q: (if .d == 0 then 0 else .n / .d end)}`), true)
	got := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
	if got.Status != platformapi.ExecutionStatusCompleted || got.FlowVersion != 2 {
		t.Fatalf("after the update: %s on version %d, want completed on 2", got.Status, got.FlowVersion)
	}
	atts := attempts(t, env, x.Id)
	if len(atts) != 3 || atts["a#0"].Status != "completed" || atts["b#0"].Status != "failed" || atts["b#1"].Status != "completed" {
		t.Fatalf("attempts %v: a kept, b run again as attempt 1", atts)
	}
}

// TestStaleInsteadOfRerun: without reexecute_on_update, or when the new version is not valid, finished
// executions (completed and failed alike) only become stale and keep their version; executions still
// running are never moved.
func TestStaleInsteadOfRerun(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)

	flow := testkit.NewFlowSeenBy(t, user, divide(`{q: (.n / .d)}`), platformapi.Organization)
	done := start(t, user, flow, map[string]any{"n": 6, "d": 2})
	failed := start(t, user, flow, map[string]any{"n": 6, "d": 0})
	testkit.WaitForExecution(t, user, done.Id, platformapi.ExecutionStatusCompleted)
	testkit.WaitForExecution(t, user, failed.Id, platformapi.ExecutionStatusFailed)
	update(t, user, flow, divide(`{q: 1}`), false)
	for _, x := range []uuid.UUID{done.Id, failed.Id} {
		if s, v := statusOf(t, env, x); s != "stale" || v != 1 {
			t.Fatalf("without reexecute_on_update: %s on version %d, want stale on 1", s, v)
		}
	}

	// An invalid new version makes them stale even with reexecute_on_update.
	other := testkit.NewFlowSeenBy(t, user, divide(`{q: (.n / .d)}`), platformapi.Organization)
	x := start(t, user, other, map[string]any{"n": 6, "d": 0})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusFailed)
	update(t, user, other, `{"version": 1, "tasks": [{"name": "a", "type": "nap"}], "edges": []}`, true)
	if s, v := statusOf(t, env, x.Id); s != "stale" || v != 1 {
		t.Fatalf("with an invalid new version: %s on version %d, want stale on 1", s, v)
	}
	if n := len(attempts(t, env, x.Id)); n != 2 {
		t.Fatalf("%d attempts after an invalid version, want the 2 it had", n)
	}

	// A running execution is left as it is.
	waiting := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "w", "type": "delay", "parameters": {"seconds": 2}}], "edges": []}`,
		platformapi.Organization)
	running := start(t, user, waiting, map[string]any{})
	update(t, user, waiting, `{"version": 1, "tasks": [{"name": "w", "type": "delay", "parameters": {"seconds": 1}}], "edges": []}`, true)
	if s, v := statusOf(t, env, running.Id); s == "stale" || v != 1 {
		t.Fatalf("a running execution became %s on version %d", s, v)
	}
	got := testkit.WaitForExecution(t, user, running.Id, platformapi.ExecutionStatusCompleted)
	if got.FlowVersion != 1 {
		t.Fatalf("the running execution finished on version %d, want 1", got.FlowVersion)
	}
}

// TestSweepDeletesFailedExecutions: failed_after_seconds applies to failed executions only, and stale
// ones count as completed.
func TestSweepDeletesFailedExecutions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, divide(`{q: (.n / .d)}`), platformapi.Organization)
	res, err := user.API.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
		Ttl: &platformapi.TTLSettings{FailedAfterSeconds: new(60)}}})
	testkit.Expect(t, res, err, http.StatusOK)
	failed := start(t, user, flow, map[string]any{"n": 6, "d": 0})
	done := start(t, user, flow, map[string]any{"n": 6, "d": 2})
	testkit.WaitForExecution(t, user, failed.Id, platformapi.ExecutionStatusFailed)
	testkit.WaitForExecution(t, user, done.Id, platformapi.ExecutionStatusCompleted)
	if _, err := env.DB.Exec(`UPDATE flow_executions SET updated_at = now() - interval '2 minutes' WHERE flow_id = $1`, flow); err != nil {
		t.Fatal(err)
	}
	if n, err := env.Server.Engine().SweepExpired(ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the failed one", n, err)
	}
	if s, _ := statusOf(t, env, failed.Id); s != "deleted" {
		t.Fatalf("the failed execution is %s", s)
	}
	if s, _ := statusOf(t, env, done.Id); s != "completed" {
		t.Fatalf("the completed execution is %s: only failed_after_seconds is set", s)
	}

	// A stale execution is deleted after completed_after_seconds.
	res, err = user.API.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
		Ttl: &platformapi.TTLSettings{CompletedAfterSeconds: new(60)}}})
	testkit.Expect(t, res, err, http.StatusOK)
	if _, err := env.DB.Exec(`UPDATE flow_executions SET status = 'stale', updated_at = now() - interval '2 minutes' WHERE id = $1`, done.Id); err != nil {
		t.Fatal(err)
	}
	if n, err := env.Server.Engine().SweepExpired(ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the stale one", n, err)
	}
}
