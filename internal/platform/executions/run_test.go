package executions_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// branchDef doubles the input's value, checks it, and takes one of two branches; the join after them
// runs with whichever branch ran.
const branchDef = `{"version": 1, "tasks": [
	{"name": "double", "type": "transform", "parameters": {"expression": "{value: (.value * 2)}"}},
	{"name": "big", "type": "condition", "parameters": {"expression": ".value > 10"}},
	{"name": "yes", "type": "transform", "parameters": {"expression": "{size: \"big\"}"}},
	{"name": "no", "type": "transform", "parameters": {"expression": "{size: \"small\"}"}},
	{"name": "join", "type": "transform", "parameters": {"expression": "."}}
], "edges": [
	{"source": "double", "target": "big"},
	{"source": "big", "target": "yes"},
	{"source": "big", "target": "no", "branch": false},
	{"source": "yes", "target": "join"},
	{"source": "no", "target": "join"}
]}`

// TestRunToCompletion: an execution runs its tasks in order, takes the branch its condition picks, skips
// the other, joins, and completes with the output of its last task.
func TestRunToCompletion(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, branchDef, platformapi.Organization)

	for _, c := range []struct {
		value float64
		took  string
		size  string
	}{{7, "yes", "big"}, {3, "no", "small"}} {
		x := start(t, user, flow, map[string]any{"value": c.value})
		if x.Status != platformapi.ExecutionStatusQueued || x.FlowVersion != 1 || x.Input["value"] != c.value {
			t.Fatalf("started %+v", x)
		}
		testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted)
		var output json.RawMessage
		if err := env.DB.Get(&output, `SELECT output FROM flow_executions WHERE id = $1`, x.Id); err != nil {
			t.Fatal(err)
		}
		var got map[string]map[string]any
		if err := json.Unmarshal(output, &got); err != nil || got[c.took]["size"] != c.size {
			t.Fatalf("value %v: output %s, want the %s branch", c.value, output, c.took)
		}
		atts := attempts(t, env, x.Id)
		skipped := map[string]string{"yes": "no", "no": "yes"}[c.took]
		if _, ran := atts[skipped+"#0"]; ran || len(atts) != 4 {
			t.Fatalf("value %v: attempts %v; %s should have been skipped", c.value, atts, skipped)
		}
		for k, a := range atts {
			if a.Status != "completed" {
				t.Errorf("%s is %s", k, a.Status)
			}
		}
		// The branch not taken has no attempt, and its task status says why.
		shown, err := user.API.ListTaskStatusesWithResponse(ctx, x.Id, nil)
		testkit.Expect(t, shown, err, http.StatusOK)
		if got := *shown.JSON200; len(got) != 1 || got[0].TaskName != skipped || got[0].Status == nil || *got[0].Status != "skipped" {
			t.Fatalf("value %v: task statuses %+v, want %s skipped", c.value, got, skipped)
		}
		var double map[string]any
		_ = json.Unmarshal(atts["double#0"].Output, &double)
		if double["value"] != 2*c.value {
			t.Errorf("double gave %s", atts["double#0"].Output)
		}
		// The condition passed its input on; its result is the attempt's detail.
		listed, err := user.API.ListTaskExecutionRecordsWithResponse(ctx, &platformapi.ListTaskExecutionRecordsParams{
			FlowExecutionId: x.Id, TaskName: new("big")})
		testkit.Expect(t, listed, err, http.StatusOK)
		big := listed.JSON200.TaskExecutions
		if len(big) != 1 || !reflect.DeepEqual(big[0].Detail, map[string]any{"result": c.took == "yes"}) ||
			!reflect.DeepEqual(big[0].Output, map[string]any{"value": 2 * c.value}) {
			t.Fatalf("value %v: the condition's attempt %+v", c.value, big)
		}
	}
}

// TestFailureStopsTheExecution: a task that fails for good fails its execution; nothing after it runs.
func TestFailureStopsTheExecution(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [
		{"name": "boom", "type": "transform", "parameters": {"expression": "error(\"no invoice\")"}, "retry": {"max_attempts": 3}},
		{"name": "after", "type": "transform", "parameters": {"expression": "."}}
	], "edges": [{"source": "boom", "target": "after"}]}`, platformapi.Organization)
	x := start(t, user, flow, map[string]any{})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusFailed)
	atts := attempts(t, env, x.Id)
	if len(atts) != 1 || atts["boom#0"].Status != "failed" {
		t.Fatalf("attempts %v: a jq error is not retried and nothing after it runs", atts)
	}
	var e map[string]any
	var raw json.RawMessage
	if err := env.DB.Get(&raw, `SELECT error FROM flow_executions WHERE id = $1`, x.Id); err != nil {
		t.Fatal(err)
	}
	if json.Unmarshal(raw, &e) != nil || e["task"] != "boom" {
		t.Fatalf("execution error %s", raw)
	}
}

// TestDelaySurvivesAsData: a delay holds no worker: its attempt waits with a wake time and completes
// when the scheduled job runs.
func TestDelaySurvivesAsData(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "wait", "type": "delay", "parameters": {"seconds": 1}}], "edges": []}`,
		platformapi.Organization)
	x := start(t, user, flow, map[string]any{})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted)
	var took float64
	if err := env.DB.Get(&took, `SELECT extract(epoch FROM completed_at - started_at) FROM task_executions
		WHERE flow_execution_id = $1 AND wake_at IS NOT NULL AND status = 'completed'`, x.Id); err != nil {
		t.Fatalf("the delay's attempt did not complete through its wake time: %v", err)
	}
	if took < 1 {
		t.Fatalf("the delay took %.2f s, want at least 1", took)
	}
}

// TestStartRefusals: invalid flows, no credits, another organization's public flow.
func TestStartRefusals(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, other, auth.RoleAppUser)
	flow := testkit.NewFlowSeenBy(t, user, branchDef, platformapi.Public)
	res, err := user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{}})
	testkit.Expect(t, res, err, http.StatusPaymentRequired)
	grant(t, env, other, 5)
	res, err = stranger.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{}})
	testkit.Expect(t, res, err, http.StatusForbidden)
	grant(t, env, org, 5)
	bad, err := user.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "bad",
		Definition: json.RawMessage(`{"version": 1, "tasks": [{"name": "x", "type": "nap"}], "edges": []}`)})
	testkit.Expect(t, bad, err, http.StatusCreated)
	res, err = user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: bad.JSON201.Id, Input: map[string]any{}})
	testkit.Expect(t, res, err, http.StatusConflict)
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM flow_executions`); err != nil || n != 0 {
		t.Fatalf("%d executions written by refused requests", n)
	}
}

// TestStop: a stopped execution fails with error type stopped, its waiting attempt is cancelled and
// nothing after it runs; stopping again changes nothing; a deleted execution cannot be stopped.
func TestStop(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	other := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "wait", "type": "delay", "parameters": {"seconds": 30}},
		{"name": "after", "type": "transform", "parameters": {"expression": "."}}], "edges": [{"source": "wait", "target": "after"}]}`,
		platformapi.Organization)
	x := start(t, user, flow, map[string]any{})
	testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusRunning)
	denied, err := other.API.StopFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, denied, err, http.StatusForbidden)
	res, err := user.API.StopFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, res, err, http.StatusOK)
	got := res.JSON200
	if got.Status != platformapi.ExecutionStatusFailed || got.Error == nil || got.Error.Type != "stopped" || got.FinishedAt == nil {
		t.Fatalf("stopped: %+v", got)
	}
	if a := attempts(t, env, x.Id); a["wait#0"].Status != "cancelled" || len(a) != 1 {
		t.Fatalf("attempts after the stop: %v", a)
	}
	again, err := user.API.StopFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, again, err, http.StatusOK)
	if again.JSON200.UpdatedAt != got.UpdatedAt {
		t.Fatal("stopping a stopped execution changed it")
	}
	del, err := user.API.DeleteFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)
	gone, err := user.API.StopFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, gone, err, http.StatusConflict)
}

// TestReadsShowOutput: a completed execution is read with its output, start and finish times.
func TestReadsShowOutput(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "{sum: (.a + .b)}"}}], "edges": []}`,
		platformapi.Organization)
	x := start(t, user, flow, map[string]any{"a": 2, "b": 3})
	got := testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusCompleted)
	out, _ := got.Output.(map[string]any)
	if out["sum"] != 5.0 || got.StartedAt == nil || got.FinishedAt == nil || got.Error != nil {
		t.Fatalf("read %+v", got)
	}
	yes := true
	res, err := user.API.GetFlowExecutionWithResponse(ctx, x.Id, &platformapi.GetFlowExecutionParams{IncludeRunNumber: &yes})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.RunNumber == nil || *res.JSON200.RunNumber != 1 {
		t.Fatalf("run number %v", res.JSON200.RunNumber)
	}
}
