package executions_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestSweepRequeuesLostAttempts: an attempt whose lease ran out (its process died) is queued again by
// the sweep, as the same attempt (same index), with a new job; one whose lease is current is left alone.
func TestSweepRequeuesLostAttempts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform",
		"parameters": {"expression": "."}}], "edges": []}`, platformapi.Organization)
	lost := start(t, user, flow, map[string]any{})
	alive := start(t, user, flow, map[string]any{})
	// Two workers took the attempts; the first one's process died, the second still renews its lease.
	if _, err := env.DB.Exec(`UPDATE task_executions SET status = 'running', started_at = now() - interval '10 minutes',
		timeout_at = CASE WHEN flow_execution_id = $1 THEN now() - interval '1 second' ELSE now() + interval '1 minute' END
		WHERE flow_execution_id IN ($1, $2)`, lost.Id, alive.Id); err != nil {
		t.Fatal(err)
	}
	var jobsBefore int
	_ = env.DB.Get(&jobsBefore, `SELECT count(*) FROM river_job WHERE kind = 'flow_task'`)
	if err := env.Server.Engine().SweepLost(ctx); err != nil {
		t.Fatal(err)
	}
	if a := attempts(t, env, lost.Id); len(a) != 1 || a["t#0"].Status != "queued" {
		t.Fatalf("the lost attempt after the sweep: %v", a)
	}
	if a := attempts(t, env, alive.Id); a["t#0"].Status != "running" {
		t.Fatalf("the live attempt after the sweep: %v", a)
	}
	var jobsAfter int
	_ = env.DB.Get(&jobsAfter, `SELECT count(*) FROM river_job WHERE kind = 'flow_task'`)
	if jobsAfter != jobsBefore+1 {
		t.Fatalf("%d jobs after the sweep, %d before: want one more", jobsAfter, jobsBefore)
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
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`,
		platformapi.Organization)
	res, err := user.API.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
		Ttl: &platformapi.TTLSettings{CompletedAfterSeconds: new(60)}}})
	testkit.Expect(t, res, err, http.StatusOK)
	old := start(t, user, flow, map[string]any{})
	fresh := start(t, user, flow, map[string]any{})
	testkit.WaitForExecution(t, user, old.Id, platformapi.ExecutionStatusCompleted)
	testkit.WaitForExecution(t, user, fresh.Id, platformapi.ExecutionStatusCompleted)
	if _, err := env.DB.Exec(`UPDATE flow_executions SET updated_at = now() - interval '2 minutes' WHERE id = $1`, old.Id); err != nil {
		t.Fatal(err)
	}
	n, err := env.Server.Engine().SweepExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want 1", n, err)
	}
	got := testkit.WaitForExecution(t, user, old.Id, platformapi.ExecutionStatusDeleted)
	if got.Status != platformapi.ExecutionStatusDeleted {
		t.Fatal("not deleted")
	}
	list, err := user.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &flow})
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 1 || list.JSON200.FlowExecutions[0].Id != fresh.Id {
		b, _ := json.Marshal(list.JSON200)
		t.Fatalf("listed %s", b)
	}
}

// TestSweepStandsInForStuckJobs: a job River still counts as running although its process died before
// claiming the attempt gets one stand-in job, however often the sweep runs.
func TestSweepStandsInForStuckJobs(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`,
		platformapi.Organization)
	start(t, user, flow, map[string]any{})
	if _, err := env.DB.Exec(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '10 minutes',
		attempted_by = '{dead}' WHERE kind = 'flow_task'`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := env.Server.Engine().SweepLost(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var standIns int
	if err := env.DB.Get(&standIns, `SELECT count(*) FROM river_job WHERE kind = 'flow_task' AND state = 'available'
		AND (args->>'stuck') IS NOT NULL`); err != nil || standIns != 1 {
		t.Fatalf("%d stand-in jobs (%v), want 1", standIns, err)
	}
}

// TestTheServerSweeps: the sweeps run by themselves on a running server: an execution past its flow's
// time to live is deleted without anyone asking.
func TestTheServerSweeps(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.TaskLease = time.Second }))
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`,
		platformapi.Organization)
	res, err := user.API.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
		Ttl: &platformapi.TTLSettings{CompletedAfterSeconds: new(1)}}})
	testkit.Expect(t, res, err, http.StatusOK)
	x := start(t, user, flow, map[string]any{})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusDeleted)
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusDeleted)
}
