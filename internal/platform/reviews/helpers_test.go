package reviews_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// reviewFlow is double → review → after: the review checks the doubled value, and after adds one to
// whatever the review left. params are the review task's parameters (JSON).
func reviewFlow(params string) string {
	return fmt.Sprintf(`{"version": 1, "tasks": [
		{"name": "double", "type": "transform", "parameters": {"expression": "{value: (.value * 2)}"}},
		{"name": "review", "type": "human_review", "parameters": %s},
		{"name": "after", "type": "transform", "parameters": {"expression": "{value: (.value + 1), approved: .review_result}"}}
	], "edges": [{"source": "double", "target": "review"}, {"source": "review", "target": "after"}]}`, params)
}

// run starts an execution of the flow (granting the credits it needs) and waits until it awaits input.
func run(t testing.TB, env *testkit.Env, c *testkit.Caller, flow uuid.UUID, value float64) uuid.UUID {
	t.Helper()
	if err := credits.Grant(ctx, env.DB, c.OrgID, 5); err != nil {
		t.Fatal(err)
	}
	res, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{"value": value}})
	testkit.Expect(t, res, err, http.StatusCreated)
	testkit.WaitForExecution(t, c, res.JSON201.Id, platformapi.ExecutionStatusAwaitingInput)
	return res.JSON201.Id
}

// reviewOf is the one review task of an execution, as c lists it.
func reviewOf(t testing.TB, c *testkit.Caller, exec uuid.UUID) platformapi.HumanReviewTaskResponse {
	t.Helper()
	res, err := c.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: &exec})
	testkit.Expect(t, res, err, http.StatusOK)
	if len(res.JSON200.HumanReviewTasks) != 1 {
		t.Fatalf("execution %s has %d review tasks, want 1", exec, len(res.JSON200.HumanReviewTasks))
	}
	return res.JSON200.HumanReviewTasks[0]
}

// output is the final output of an execution.
func output(t testing.TB, env *testkit.Env, exec uuid.UUID) map[string]any {
	t.Helper()
	var raw json.RawMessage
	if err := env.DB.Get(&raw, `SELECT coalesce(output, 'null') FROM flow_executions WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func complete(t testing.TB, c *testkit.Caller, id uuid.UUID, ok bool, out map[string]any, want int) *platformapi.HumanReviewTaskResponse {
	t.Helper()
	res, err := c.API.CompleteHumanReviewTaskWithResponse(ctx, id, platformapi.HumanReviewTaskCompleteRequest{ReviewResult: ok, ReviewedOutput: out})
	testkit.Expect(t, res, err, want)
	return res.JSON200
}
