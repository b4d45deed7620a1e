package taskexecutions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// bareExecution creates a flow of org without tasks and an execution of it that the engine does not run
// (no execution_tasks rows), in the given status ("deleted" marks it as deleteFlowExecution does).
func bareExecution(t testing.TB, env *testkit.Env, org uuid.UUID, creator *uuid.UUID, visibility, status string) uuid.UUID {
	t.Helper()
	var flow, exec uuid.UUID
	if err := env.DB.Get(&flow, `INSERT INTO flows (organization_id, created_by, executions_started) VALUES ($1, $2, 1) RETURNING id`,
		org, creator); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, visibility)
		VALUES ($1, 1, $2, 'test flow', '{"tasks": []}', $3)`, flow, org, visibility); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&exec, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number, created_by, deleted_at)
		VALUES ($1, $2, 1, $3, 1, $4, CASE WHEN $3 = 'deleted' THEN now() END) RETURNING id`, org, flow, status, creator); err != nil {
		t.Fatal(err)
	}
	return exec
}

// req is a report; input, output are JSON text ("" to omit).
func req(exec uuid.UUID, task string, idx int, status platformapi.TaskExecutionStatus, input, output string) platformapi.CreateTaskExecutionRequest {
	r := platformapi.CreateTaskExecutionRequest{FlowExecutionId: exec, TaskName: task, TaskExecutionIdx: idx, Status: status}
	if input != "" {
		r.Input = json.RawMessage(input)
	}
	if output != "" {
		r.Output = json.RawMessage(output)
	}
	return r
}

// record reports and fails the test unless it answers want (201 or 200); it returns the attempt.
func record(t testing.TB, c *testkit.Caller, r platformapi.CreateTaskExecutionRequest, want int) platformapi.TaskExecutionWithTagsAPI {
	t.Helper()
	res, err := c.API.RecordTaskExecutionWithResponse(ctx, r)
	testkit.Expect(t, res, err, want)
	if want == http.StatusCreated {
		return *res.JSON201
	}
	return *res.JSON200
}

// list lists attempts and fails the test unless it answers 200.
func list(t testing.TB, c *testkit.Caller, p platformapi.ListTaskExecutionRecordsParams) []platformapi.TaskExecutionWithTagsAPI {
	t.Helper()
	res, err := c.API.ListTaskExecutionRecordsWithResponse(ctx, &p)
	testkit.Expect(t, res, err, http.StatusOK)
	return res.JSON200.TaskExecutions
}

// claim claims and returns the attempt, or nil on 204.
func claim(t testing.TB, c *testkit.Caller, r platformapi.TaskExecutionClaimRequest) *platformapi.ClaimedTaskExecution {
	t.Helper()
	res, err := c.API.ClaimTaskExecutionWithResponse(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	switch res.StatusCode() {
	case http.StatusOK:
		return res.JSON200
	case http.StatusNoContent:
		return nil
	}
	t.Fatalf("claim answered %d: %s", res.StatusCode(), res.Body)
	return nil
}

// start grants a credit and starts an execution of the flow.
func start(t testing.TB, env *testkit.Env, c *testkit.Caller, flow uuid.UUID, input map[string]any) uuid.UUID {
	t.Helper()
	if err := credits.Grant(ctx, env.DB, c.OrgID, 1); err != nil {
		t.Fatal(err)
	}
	res, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: input})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}
