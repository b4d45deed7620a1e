package executions_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestSweepFailsLostAttempts: an attempt still running past its deadline (its process died) is failed
// as a timeout by the sweep, and the task's retry queues the next attempt.
func TestSweepFailsLostAttempts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := newFlow(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform",
		"parameters": {"expression": "."}, "retry": {"max_attempts": 2}}], "edges": []}`, platformapi.Organization)
	x := start(t, user, flow, map[string]any{})
	// A worker took the attempt and died.
	if _, err := env.DB.Exec(`UPDATE task_executions SET status = 'running', started_at = now() - interval '10 minutes',
		timeout_at = now() - interval '1 minute' WHERE flow_execution_id = $1`, x.Id); err != nil {
		t.Fatal(err)
	}
	if err := env.Server.Engine().SweepOverdue(ctx); err != nil {
		t.Fatal(err)
	}
	atts := attempts(t, env, x.Id)
	if atts["t#0"].Status != "failed" || atts["t#1"].Status != "queued" {
		t.Fatalf("after the sweep: %v", atts)
	}
	var kind string
	if err := env.DB.Get(&kind, `SELECT error->>'type' FROM task_executions WHERE flow_execution_id = $1 AND task_execution_idx = 0`, x.Id); err != nil || kind != "timeout" {
		t.Fatalf("error type %q (%v)", kind, err)
	}
}

// TestSweepDeletesExpiredExecutions: the time to live of a flow's settings soft-deletes its finished
// executions once it has passed, and no others.
func TestSweepDeletesExpiredExecutions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := newFlow(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`,
		platformapi.Organization)
	res, err := user.API.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
		Ttl: &platformapi.TTLSettings{CompletedAfterSeconds: ptr(60)}}})
	expect(t, res, err, http.StatusOK)
	old := start(t, user, flow, map[string]any{})
	fresh := start(t, user, flow, map[string]any{})
	waitFor(t, user, old.Id, platformapi.ExecutionStatusCompleted)
	waitFor(t, user, fresh.Id, platformapi.ExecutionStatusCompleted)
	if _, err := env.DB.Exec(`UPDATE flow_executions SET updated_at = now() - interval '2 minutes' WHERE id = $1`, old.Id); err != nil {
		t.Fatal(err)
	}
	n, err := env.Server.Engine().SweepExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	got := waitFor(t, user, old.Id, platformapi.ExecutionStatusDeleted)
	if got.Status != platformapi.ExecutionStatusDeleted {
		t.Fatal("not deleted")
	}
	list, err := user.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &flow})
	expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 1 || list.JSON200.FlowExecutions[0].Id != fresh.Id {
		b, _ := json.Marshal(list.JSON200)
		t.Fatalf("listed %s", b)
	}
}
