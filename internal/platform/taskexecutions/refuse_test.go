package taskexecutions_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// reviewedDef runs a transform, then asks people to review its output.
const reviewedDef = `{"version": 1, "tasks": [
	{"name": "prep", "type": "transform", "parameters": {"expression": "{n: .n}"}},
	{"name": "check", "type": "human_review", "parameters": {"instructions": "Is n right?"}}
], "edges": [{"source": "prep", "target": "check"}]}`

// TestReportsOnlyOutsideAttempts: a worker's report cannot complete a human_review attempt (409 naming
// the review's route, and the execution still waits for its review), nor any attempt of a task the
// engine runs, nor record one in its place ahead of the engine.
func TestReportsOnlyOutsideAttempts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleOrgAdmin)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	flow := testkit.NewFlow(t, user, reviewedDef)
	exec := start(t, env, user, flow, map[string]any{"n": 1})
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusAwaitingInput)
	var review string
	if err := env.DB.Get(&review, `SELECT id FROM human_review_tasks WHERE flow_execution_id = $1`, exec); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		r    platformapi.CreateTaskExecutionRequest
		want string
	}{
		{req(exec, "check", 0, platformapi.TaskExecutionStatusCompleted, "", `{"review_result": true, "made": "up"}`),
			"/api/human-review-tasks/" + review + "/complete"},
		{req(exec, "check", 0, platformapi.TaskExecutionStatusRunning, "", ""), "/api/human-review-tasks/" + review + "/complete"},
		{req(exec, "check", 1, platformapi.TaskExecutionStatusCompleted, "", `{}`), "human_review task"},
		{req(exec, "prep", 0, platformapi.TaskExecutionStatusCompleted, "", `{}`), "the engine runs itself"},
		{req(exec, "prep", 3, platformapi.TaskExecutionStatusQueued, "", ""), "the engine runs itself"},
	} {
		res, err := worker.API.RecordTaskExecutionWithResponse(ctx, c.r)
		testkit.Expect(t, res, err, http.StatusConflict)
		if !strings.Contains(string(res.Body), c.want) {
			t.Errorf("report of %s #%d %s: %s, want it to say %q", c.r.TaskName, c.r.TaskExecutionIdx, c.r.Status, res.Body, c.want)
		}
	}
	var status, reviewStatus string
	var attempts int
	if err := env.DB.QueryRow(`SELECT x.status, r.status, (SELECT count(*) FROM task_executions WHERE flow_execution_id = x.id)
		FROM flow_executions x JOIN human_review_tasks r ON r.flow_execution_id = x.id WHERE x.id = $1`, exec).
		Scan(&status, &reviewStatus, &attempts); err != nil {
		t.Fatal(err)
	}
	if status != "awaiting_input" || reviewStatus != "pending" || attempts != 2 {
		t.Fatalf("after the refused reports: execution %s, review %s, %d attempts", status, reviewStatus, attempts)
	}
	// A task the version does not have is the worker's own record, as before.
	record(t, worker, req(exec, "notes", 0, platformapi.TaskExecutionStatusCompleted, "", `{"k": 1}`), http.StatusCreated)
}
