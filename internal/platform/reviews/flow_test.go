package reviews_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestReviewedOutputContinuesTheFlow: the execution waits in awaiting_input, the reviewer finds the work
// in its queue, starts and corrects it, and the next task runs on the corrected output.
func TestReviewedOutputContinuesTheFlow(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	reviewer := env.User(t, org, auth.RoleAppUser)
	flow := testkit.NewFlow(t, owner, reviewFlow(fmt.Sprintf(`{"instructions": "Check the value.", "assigned_users": [%q]}`, reviewer.UserID)))
	exec := run(t, env, owner, flow, 21)

	mine, err := reviewer.API.ListMyHumanReviewAssignmentsWithResponse(ctx, &platformapi.ListMyHumanReviewAssignmentsParams{
		Status: new(platformapi.HumanReviewAssignmentStatusPending)})
	testkit.Expect(t, mine, err, http.StatusOK)
	if mine.JSON200.Total != 1 || mine.JSON200.Assignments[0].UserId != reviewer.UserID || mine.JSON200.Assignments[0].User != nil {
		t.Fatalf("my assignments %+v", mine.JSON200)
	}
	id := mine.JSON200.Assignments[0].HumanReviewTaskId
	got, err := reviewer.API.GetHumanReviewTaskWithResponse(ctx, id)
	testkit.Expect(t, got, err, http.StatusOK)
	r := got.JSON200
	if r.Status != platformapi.HumanReviewTaskStatusPending || r.SourceTaskName != "double" || r.TargetTaskName != "review" ||
		(*r.TaskMetadata)["source_output"].(map[string]any)["value"] != 42.0 || *r.Instructions != "Check the value." ||
		r.RequiredApprovals != 1 || r.TimeoutAt != nil {
		t.Fatalf("review %+v", r)
	}

	started, err := reviewer.API.StartHumanReviewTaskWithResponse(ctx, id)
	testkit.Expect(t, started, err, http.StatusOK)
	if started.JSON200.Status != platformapi.HumanReviewAssignmentStatusInProgress || started.JSON200.StartedAt == nil {
		t.Fatalf("started %+v", started.JSON200)
	}
	again, err := reviewer.API.StartHumanReviewTaskWithResponse(ctx, id)
	testkit.Expect(t, again, err, http.StatusOK)
	if !again.JSON200.StartedAt.Equal(*started.JSON200.StartedAt) {
		t.Fatal("starting again changed the assignment")
	}
	done := complete(t, reviewer, id, false, map[string]any{"value": 100}, http.StatusOK)
	if done.Status != platformapi.HumanReviewTaskStatusCompleted || *done.ReviewResult || *done.CompletedBy != reviewer.UserID ||
		(*done.ReviewedOutput)["value"] != 100.0 || done.CompletedAt == nil {
		t.Fatalf("completed %+v", done)
	}
	testkit.WaitForExecution(t, owner, exec, platformapi.ExecutionStatusCompleted)
	if out := output(t, env, exec); out["value"] != 101.0 || out["approved"] != false {
		t.Fatalf("output %v", out)
	}
	complete(t, reviewer, id, true, map[string]any{}, http.StatusConflict)
}

// TestRequiredApprovals: the first of two approvals keeps the execution waiting; the second continues it.
func TestRequiredApprovals(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	a, b, c := env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleOrgAdmin)
	flow := testkit.NewFlow(t, owner, reviewFlow(fmt.Sprintf(`{"assigned_users": [%q, %q, %q], "required_approvals": 2}`, a.UserID, b.UserID, c.UserID)))
	exec := run(t, env, owner, flow, 1)
	id := reviewOf(t, owner, exec).Id

	first := complete(t, a, id, true, map[string]any{"value": 2}, http.StatusOK)
	if first.Status != platformapi.HumanReviewTaskStatusInProgress || first.Approvals != 1 || first.ReviewResult != nil {
		t.Fatalf("after one approval %+v", first)
	}
	complete(t, a, id, true, map[string]any{"value": 2}, http.StatusConflict)
	testkit.WaitForExecution(t, owner, exec, platformapi.ExecutionStatusAwaitingInput)
	second := complete(t, b, id, true, map[string]any{"value": 2}, http.StatusOK)
	if second.Status != platformapi.HumanReviewTaskStatusCompleted || second.Approvals != 2 || !*second.ReviewResult {
		t.Fatalf("after two approvals %+v", second)
	}
	testkit.WaitForExecution(t, owner, exec, platformapi.ExecutionStatusCompleted)
	if out := output(t, env, exec); out["value"] != 3.0 || out["approved"] != true {
		t.Fatalf("output %v", out)
	}
	list, err := owner.API.ListHumanReviewTaskAssignmentsWithResponse(ctx, id, &platformapi.ListHumanReviewTaskAssignmentsParams{IncludeUserInfo: new(true)})
	testkit.Expect(t, list, err, http.StatusOK)
	want := []platformapi.HumanReviewAssignmentStatus{"completed", "completed", "cancelled"}
	for i, as := range *list.JSON200 {
		if as.Status != want[i] || as.User == nil || as.User.Id != as.UserId || string(as.User.Email) == "" {
			t.Errorf("assignment %d: %+v", i, as)
		}
	}
}

// TestRejectionBranches: one rejection decides, and edges branch on .review_result.
func TestRejectionBranches(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	a, b := env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleAppUser)
	def := fmt.Sprintf(`{"version": 1, "tasks": [
		{"name": "review", "type": "human_review", "parameters": {"assigned_users": [%q, %q], "required_approvals": 2}},
		{"name": "accepted", "type": "transform", "parameters": {"expression": "{branch: \"accepted\"}"}},
		{"name": "rejected", "type": "transform", "parameters": {"expression": "{branch: \"rejected\", value}"}}
	], "edges": [{"source": "review", "target": "accepted", "condition": ".review_result"},
		{"source": "review", "target": "rejected", "condition": ".review_result == false"}]}`, a.UserID, b.UserID)
	exec := run(t, env, owner, testkit.NewFlow(t, owner, def), 5)
	r := reviewOf(t, a, exec)
	if r.SourceTaskName != "review" || (*r.TaskMetadata)["source_output"].(map[string]any)["value"] != 5.0 {
		t.Fatalf("a review of the task's input %+v", r)
	}
	done := complete(t, b, r.Id, false, map[string]any{"value": 6}, http.StatusOK)
	if done.Status != platformapi.HumanReviewTaskStatusCompleted || *done.ReviewResult {
		t.Fatalf("rejected %+v", done)
	}
	testkit.WaitForExecution(t, owner, exec, platformapi.ExecutionStatusCompleted)
	if out := output(t, env, exec); out["rejected"] == nil || out["accepted"] != nil {
		t.Fatalf("output %v", out)
	}
	start, err := a.API.StartHumanReviewTaskWithResponse(ctx, r.Id)
	testkit.Expect(t, start, err, http.StatusConflict)
}

// TestTimeouts: a review left open ends as on_timeout says.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	for _, c := range []struct {
		outcome string
		status  platformapi.ExecutionStatus
		result  *bool
	}{{"approve", "completed", new(true)}, {"reject", "completed", new(false)}, {"fail", "failed", nil}} {
		t.Run(c.outcome, func(t *testing.T) {
			t.Parallel()
			flow := testkit.NewFlow(t, owner, reviewFlow(fmt.Sprintf(`{"assigned_users": [%q], "timeout_seconds": 1, "on_timeout": %q}`, owner.UserID, c.outcome)))
			exec := run(t, env, owner, flow, 4)
			testkit.WaitForExecution(t, owner, exec, c.status)
			r := reviewOf(t, owner, exec)
			if r.Status != platformapi.HumanReviewTaskStatusCompleted || r.CompletedBy != nil || r.TimeoutAt == nil ||
				string(*r.OnTimeout) != c.outcome || (r.ReviewResult == nil) != (c.result == nil) ||
				(c.result != nil && *r.ReviewResult != *c.result) {
				t.Fatalf("expired review %+v", r)
			}
			if c.result != nil {
				if out := output(t, env, exec); out["value"] != 9.0 || out["approved"] != *c.result {
					t.Fatalf("output %v", out)
				}
			}
			complete(t, owner, r.Id, true, map[string]any{}, http.StatusConflict)
		})
	}
}
