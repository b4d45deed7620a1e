package taskexecutions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// response is any reply of the generated client.
type response interface{ StatusCode() int }

// expect fails the test unless the call answered the status.
func expect(t testing.TB, res response, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != want {
		t.Fatalf("status %d, want %d: %s", res.StatusCode(), want, bodyOf(res))
	}
}

func bodyOf(res response) []byte {
	v := reflect.Indirect(reflect.ValueOf(res)).FieldByName("Body")
	if !v.IsValid() {
		return nil
	}
	return v.Bytes()
}

// sameAsMissing fails unless got is exactly the 404 that a random id answers.
func sameAsMissing(t testing.TB, got, missing response) {
	t.Helper()
	if got.StatusCode() != http.StatusNotFound || missing.StatusCode() != http.StatusNotFound {
		t.Fatalf("statuses %d and %d, want 404 for both: %s / %s", got.StatusCode(), missing.StatusCode(), bodyOf(got), bodyOf(missing))
	}
	var a, b platformapi.ErrorResponse
	if json.Unmarshal(bodyOf(got), &a) != nil || json.Unmarshal(bodyOf(missing), &b) != nil ||
		a.Error.Message != b.Error.Message || !reflect.DeepEqual(a.Error.Code, b.Error.Code) {
		t.Fatalf("a hidden execution answers %s, a random id %s", bodyOf(got), bodyOf(missing))
	}
}

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
	expect(t, res, err, want)
	if want == http.StatusCreated {
		return *res.JSON201
	}
	return *res.JSON200
}

// list lists attempts and fails the test unless it answers 200.
func list(t testing.TB, c *testkit.Caller, p platformapi.ListTaskExecutionRecordsParams) []platformapi.TaskExecutionWithTagsAPI {
	t.Helper()
	res, err := c.API.ListTaskExecutionRecordsWithResponse(ctx, &p)
	expect(t, res, err, http.StatusOK)
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

// newFlow creates a flow through the API and returns its id.
func newFlow(t testing.TB, c *testkit.Caller, definition string) uuid.UUID {
	t.Helper()
	vis := platformapi.Organization
	res, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "flow", Definition: json.RawMessage(definition), Visibility: &vis})
	expect(t, res, err, http.StatusCreated)
	if len(*res.JSON201.ValidationErrors) != 0 {
		t.Fatalf("the test flow is not valid: %+v", *res.JSON201.ValidationErrors)
	}
	return res.JSON201.Id
}

// start grants a credit and starts an execution of the flow.
func start(t testing.TB, env *testkit.Env, c *testkit.Caller, flow uuid.UUID, input map[string]any) uuid.UUID {
	t.Helper()
	if err := credits.Grant(ctx, env.DB, c.OrgID, 1); err != nil {
		t.Fatal(err)
	}
	res, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: input})
	expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

// waitFor polls an execution until its status is want, and fails the test after 10 seconds.
func waitFor(t testing.TB, c *testkit.Caller, id uuid.UUID, want platformapi.ExecutionStatus) *platformapi.FlowExecutionResponseWithRunNumber {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := c.API.GetFlowExecutionWithResponse(ctx, id, nil)
		expect(t, res, err, http.StatusOK)
		if res.JSON200.Status == want {
			return res.JSON200
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s is still %s after 10 s, want %s", id, res.JSON200.Status, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
