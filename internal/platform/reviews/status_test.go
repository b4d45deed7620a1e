package reviews_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestEveryOperationByStatus: each human-review operation answers 401 without credentials, 404 for
// another organization's review exactly as for a random id, 403 to callers who may not act, 409 on
// what is over, 422 on bad input, and its success.
func TestEveryOperationByStatus(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	reviewer := env.User(t, org, auth.RoleAppUser)
	bystander := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	outsider := env.User(t, other, auth.RoleOrgAdmin)
	anon, _ := env.Clients(t, "")
	flow := testkit.NewFlow(t, owner, reviewFlow(fmt.Sprintf(`{"assigned_users": [%q]}`, reviewer.UserID)))
	exec := run(t, env, owner, flow, 1)
	id := reviewOf(t, owner, exec).Id
	random := uuid.New()

	t.Run("401", func(t *testing.T) {
		r1, err := anon.GetHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, r1, err, http.StatusUnauthorized)
		r2, err := anon.ListMyHumanReviewAssignmentsWithResponse(ctx, nil)
		testkit.Expect(t, r2, err, http.StatusUnauthorized)
		r3, err := anon.StartHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, r3, err, http.StatusUnauthorized)
	})
	t.Run("404 for another organization exactly like a random id", func(t *testing.T) {
		var bodies []string
		for _, target := range []uuid.UUID{id, random} {
			g, err := outsider.API.GetHumanReviewTaskWithResponse(ctx, target)
			testkit.Expect(t, g, err, http.StatusNotFound)
			bodies = append(bodies, string(g.JSON404.Error.Message))
			s, err := outsider.API.StartHumanReviewTaskWithResponse(ctx, target)
			testkit.Expect(t, s, err, http.StatusNotFound)
			c := complete(t, outsider, target, true, map[string]any{}, http.StatusNotFound)
			_ = c
			a, err := outsider.API.ListHumanReviewTaskAssignmentsWithResponse(ctx, target, nil)
			testkit.Expect(t, a, err, http.StatusNotFound)
		}
		if bodies[0] != bodies[1] {
			t.Fatalf("another organization's review %q, a random id %q", bodies[0], bodies[1])
		}
		l, err := outsider.API.ListHumanReviewTasksWithResponse(ctx, nil)
		testkit.Expect(t, l, err, http.StatusOK)
		if l.JSON200.Total != 0 {
			t.Fatalf("another organization lists %d reviews", l.JSON200.Total)
		}
	})
	t.Run("403", func(t *testing.T) {
		s, err := bystander.API.StartHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, s, err, http.StatusForbidden)
		s, err = admin.API.StartHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, s, err, http.StatusForbidden)
		complete(t, bystander, id, true, map[string]any{}, http.StatusForbidden)
		c, err := owner.API.CreateHumanReviewTaskWithResponse(ctx, platformapi.HumanReviewTaskCreateRequest{FlowExecutionId: exec,
			TargetTaskName: "after", SourceTaskName: "double", AssignedUsers: []uuid.UUID{}})
		testkit.Expect(t, c, err, http.StatusForbidden)
	})
	t.Run("422", func(t *testing.T) {
		g, err := reviewer.API.GetHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, g, err, http.StatusOK)
		l, err := reviewer.API.ListMyHumanReviewAssignmentsWithResponse(ctx, &platformapi.ListMyHumanReviewAssignmentsParams{
			Status: new(platformapi.HumanReviewAssignmentStatus("done"))})
		testkit.Expect(t, l, err, http.StatusUnprocessableEntity)
		c, err := worker.API.CreateHumanReviewTaskWithResponse(ctx, platformapi.HumanReviewTaskCreateRequest{FlowExecutionId: exec,
			TargetTaskName: "after", SourceTaskName: "double", AssignedUsers: []uuid.UUID{worker.UserID}})
		testkit.Expect(t, c, err, http.StatusUnprocessableEntity)
		c, err = worker.API.CreateHumanReviewTaskWithResponse(ctx, platformapi.HumanReviewTaskCreateRequest{FlowExecutionId: exec,
			TargetTaskName: "after", SourceTaskName: "double", AssignedUsers: []uuid.UUID{outsider.UserID}})
		testkit.Expect(t, c, err, http.StatusUnprocessableEntity)
	})
	t.Run("create, 404 and 409", func(t *testing.T) {
		req := platformapi.HumanReviewTaskCreateRequest{FlowExecutionId: exec, TargetTaskName: "after",
			SourceTaskName: "double", AssignedUsers: []uuid.UUID{bystander.UserID, bystander.UserID}, Instructions: new("look")}
		c, err := worker.API.CreateHumanReviewTaskWithResponse(ctx, req)
		testkit.Expect(t, c, err, http.StatusCreated)
		r := c.JSON201
		if r.Status != platformapi.HumanReviewTaskStatusPending || r.ModifiedBy != worker.UserID.String() ||
			(*r.TaskMetadata)["source_output"].(map[string]any)["value"] != 2.0 || (*r.TaskMetadata)["flow_version"] != 1.0 {
			t.Fatalf("created %+v", r)
		}
		a, err := admin.API.ListHumanReviewTaskAssignmentsWithResponse(ctx, r.Id, nil)
		testkit.Expect(t, a, err, http.StatusOK)
		if len(*a.JSON200) != 1 || (*a.JSON200)[0].UserId != bystander.UserID || (*a.JSON200)[0].User != nil {
			t.Fatalf("assignments %+v", *a.JSON200)
		}
		c, err = worker.API.CreateHumanReviewTaskWithResponse(ctx, req)
		testkit.Expect(t, c, err, http.StatusConflict)
		req.FlowExecutionId = random
		c, err = worker.API.CreateHumanReviewTaskWithResponse(ctx, req)
		testkit.Expect(t, c, err, http.StatusNotFound)
		// An administrator completes without an assignment, and decides alone.
		done := complete(t, admin, r.Id, true, map[string]any{"ok": true}, http.StatusOK)
		if done.Status != platformapi.HumanReviewTaskStatusCompleted || *done.CompletedBy != admin.UserID {
			t.Fatalf("completed by an administrator %+v", done)
		}
		complete(t, admin, r.Id, true, map[string]any{}, http.StatusConflict)
		s, err := bystander.API.StartHumanReviewTaskWithResponse(ctx, r.Id)
		testkit.Expect(t, s, err, http.StatusConflict)
	})
	t.Run("409 on a deleted execution", func(t *testing.T) {
		d, err := owner.API.DeleteFlowExecutionWithResponse(ctx, exec)
		testkit.Expect(t, d, err, http.StatusNoContent)
		s, err := reviewer.API.StartHumanReviewTaskWithResponse(ctx, id)
		testkit.Expect(t, s, err, http.StatusConflict)
		complete(t, admin, id, true, map[string]any{}, http.StatusConflict)
		mine, err := reviewer.API.ListMyHumanReviewAssignmentsWithResponse(ctx, nil)
		testkit.Expect(t, mine, err, http.StatusOK)
		if mine.JSON200.Total != 1 || mine.JSON200.Assignments[0].Status != platformapi.HumanReviewAssignmentStatusCancelled {
			t.Fatalf("after the delete %+v", mine.JSON200)
		}
		c, err := worker.API.CreateHumanReviewTaskWithResponse(ctx, platformapi.HumanReviewTaskCreateRequest{FlowExecutionId: exec,
			TargetTaskName: "x", SourceTaskName: "double", AssignedUsers: []uuid.UUID{}})
		testkit.Expect(t, c, err, http.StatusConflict)
	})
}
