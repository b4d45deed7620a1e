package executions_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestDeleteRunningExecution: deleting a running execution cancels its running and queued attempts and
// starts nothing more; a caller who neither started it nor may change its flow gets 403 and changes
// nothing; a second delete answers 204 again; the deleted execution's attempts can no longer be
// reported or claimed.
func TestDeleteRunningExecution(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, owner, waitDef, platformapi.Organization)
	x := start(t, owner, flow, map[string]any{})
	c, err := worker.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w", TaskNames: &[]string{"a"}})
	testkit.Expect(t, c, err, http.StatusOK)
	testkit.WaitForExecution(t, owner, x.Id, platformapi.ExecutionStatusRunning)
	before := map[string]string{"a#0": "running", "b#0": "queued"}
	status := func() map[string]string {
		out := map[string]string{}
		for k, a := range attempts(t, env, x.Id) {
			out[k] = a.Status
		}
		return out
	}
	if got := status(); !reflect.DeepEqual(got, before) {
		t.Fatalf("attempts before the delete: %v", got)
	}

	denied, err := colleague.API.DeleteFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, denied, err, http.StatusForbidden)
	if got := status(); !reflect.DeepEqual(got, before) {
		t.Fatalf("a refused delete changed the attempts: %v", got)
	}
	for range 2 {
		del, err := owner.API.DeleteFlowExecutionWithResponse(ctx, x.Id)
		testkit.Expect(t, del, err, http.StatusNoContent)
	}
	if got := status(); !reflect.DeepEqual(got, map[string]string{"a#0": "cancelled", "b#0": "cancelled"}) {
		t.Fatalf("attempts after the delete: %v", got)
	}
	read, err := colleague.API.GetFlowExecutionWithResponse(ctx, x.Id, nil)
	testkit.Expect(t, read, err, http.StatusOK)
	if read.JSON200.Status != platformapi.ExecutionStatusDeleted {
		t.Fatalf("a deleted execution reads %s", read.JSON200.Status)
	}
	// The worker that held "a" finds the execution gone; "b" is not offered.
	rep, err := worker.API.RecordTaskExecutionWithResponse(ctx, platformapi.CreateTaskExecutionRequest{FlowExecutionId: x.Id,
		TaskName: "a", Status: platformapi.TaskExecutionStatusCompleted, Output: json.RawMessage(`{}`)})
	testkit.Expect(t, rep, err, http.StatusConflict)
	again, err := worker.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w"})
	testkit.Expect(t, again, err, http.StatusNoContent)
	if got := status(); !reflect.DeepEqual(got, map[string]string{"a#0": "cancelled", "b#0": "cancelled"}) {
		t.Fatalf("attempts after the late report: %v (\"after\" must never start)", got)
	}
	if ids, _ := listIDs(t, owner, platformapi.ListFlowExecutionsParams{}); len(ids) != 0 {
		t.Fatalf("a deleted execution is listed: %v", ids)
	}
	// A caller who may change the flow may delete what another user started.
	y := start(t, colleague, flow, map[string]any{})
	del, err := env.User(t, org, auth.RoleOrgAdmin).API.DeleteFlowExecutionWithResponse(ctx, y.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)
}

// TestRefusedStartWritesNothing: a start refused for want of credits, an invalid flow, a missing flow or
// another organization's flow leaves no execution, no task rows, no used run number and no spent credit.
func TestRefusedStartWritesNothing(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	flow, bad := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization), invalidFlow(t, user)
	public := testkit.NewFlowSeenBy(t, env.User(t, other, auth.RoleAppUser), waitDef, platformapi.Public)
	grant(t, env, other, 5)
	refuse := func(id uuid.UUID, want int) {
		t.Helper()
		res, err := user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: id, Input: map[string]any{"k": 1}})
		testkit.Expect(t, res, err, want)
	}
	refuse(flow, http.StatusPaymentRequired)
	grant(t, env, org, 5)
	refuse(bad, http.StatusConflict)
	refuse(uuid.New(), http.StatusNotFound)
	refuse(public, http.StatusForbidden)

	var rows struct {
		Executions int `db:"executions"`
		Attempts   int `db:"attempts"`
		Tasks      int `db:"tasks"`
		Started    int `db:"started"`
	}
	if err := env.DB.Get(&rows, `SELECT (SELECT count(*) FROM flow_executions) AS executions,
		(SELECT count(*) FROM task_executions) AS attempts, (SELECT count(*) FROM execution_tasks) AS tasks,
		(SELECT coalesce(sum(executions_started), 0) FROM flows) AS started`); err != nil {
		t.Fatal(err)
	}
	if rows.Executions+rows.Attempts+rows.Tasks+rows.Started != 0 {
		t.Fatalf("refused starts wrote %+v", rows)
	}
	if b, err := credits.Get(ctx, env.DB, org); err != nil || b.Remaining() != 5 {
		t.Fatalf("balance %+v (%v) after refused starts, want 5 left", b, err)
	}
	// The first start that succeeds is run 1: no refused one took a number.
	x := start(t, user, flow, map[string]any{})
	if n := runNumber(t, user, x.Id); n != 1 {
		t.Fatalf("the first successful start is run %d", n)
	}
}

// TestInvalidFlowConflictCarriesErrors: the 409 of a start of an invalid flow carries the flow's
// validation errors (ErrorDetails) in error.details, as executions.yaml documents.
func TestInvalidFlowConflictCarriesErrors(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 5)
	bad := invalidFlow(t, user)
	f, err := user.API.GetFlowWithResponse(ctx, bad, &platformapi.GetFlowParams{IncludeValidationErrors: new(true)})
	testkit.Expect(t, f, err, http.StatusOK)
	if f.JSON200.ValidationErrors == nil || len(*f.JSON200.ValidationErrors) == 0 {
		t.Fatalf("the invalid flow reads without validation errors: %s", f.Body)
	}
	res, err := user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: bad, Input: map[string]any{}})
	testkit.Expect(t, res, err, http.StatusConflict)
	e := testkit.ErrorOf(t, res)
	var got []platformapi.ErrorDetails
	raw, _ := json.Marshal(e.Details)
	if err := json.Unmarshal(raw, &got); err != nil || !reflect.DeepEqual(got, *f.JSON200.ValidationErrors) {
		t.Fatalf("409 details %s, want the flow's validation errors %+v", raw, *f.JSON200.ValidationErrors)
	}
}
