package jobs_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// worker makes a user of the organization a worker of app with role, and answers it.
func (f *fx) worker(t *testing.T, app uuid.UUID, c *testkit.Caller, role string) *testkit.Caller {
	t.Helper()
	f.env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, $4)`, app, c.UserID, f.org, role)
	return c
}

// label sends a response to a job as c and checks the status it answers.
func label(t *testing.T, c *testkit.Caller, app uuid.UUID, id int64, response string, want int) {
	t.Helper()
	res, err := c.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: json.RawMessage(response)})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "label by "+c.Email, res.StatusCode(), res.Body, want)
}

// TestLabelingKeepsTheReviewRule: the job of a review that names its reviewer is that reviewer's (and an
// administrator's) to label, exactly as /api lets only them complete the review. Another LABELER, or a
// MANAGER of the app, is not offered it by the label route, not even by id, and its label answers 403
// like its completion through /api, whoever holds the job; the reviewer takes it and labels it, which
// completes the reviewer's own assignment. A review whose users were defaulted rather than named stays
// open to every labeler of the app.
func TestLabelingKeepsTheReviewRule(t *testing.T) {
	t.Parallel()
	f := setup(t)
	reviewer := f.env.User(t, f.org, auth.RoleAppUser)
	app := f.newApp(t, appOpts{def: reviewedFlow(reviewer.UserID)})
	f.worker(t, app, reviewer, "LABELER")
	labeler := f.member(t, app, "LABELER")
	manager := f.member(t, app, "MANAGER")

	id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hi"})})
	job := f.waitJob(t, app, id, "SUSPENDED")
	take(t, labeler, app, nil, http.StatusNoContent)
	take(t, labeler, app, &v1api.GetJobToLabelParams{JobId: &id}, http.StatusNoContent)
	take(t, manager, app, nil, http.StatusNoContent)
	label(t, labeler, app, id, `{"label": "stolen"}`, http.StatusForbidden)
	reviews, err := reviewer.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: job.FlowExecutionId})
	testkit.Expect(t, reviews, err, http.StatusOK)
	review := reviews.JSON200.HumanReviewTasks[0].Id
	done, err := labeler.API.CompleteHumanReviewTaskWithResponse(ctx, review, platformapi.HumanReviewTaskCompleteRequest{
		ReviewResult: true, ReviewedOutput: map[string]any{"label": "stolen"}})
	testkit.Expect(t, done, err, http.StatusForbidden)
	assignment := func() (status string) {
		t.Helper()
		if err := f.env.DB.Get(&status, `SELECT status FROM human_review_assignments WHERE human_review_task_id = $1 AND user_id = $2`,
			review, reviewer.UserID); err != nil {
			t.Fatal(err)
		}
		return status
	}
	if job = f.waitJob(t, app, id, "SUSPENDED"); job.AssignedTo != nil || assignment() != "pending" {
		t.Fatalf("after the refusals the job is held by %v and the reviewer's assignment is %s", job.AssignedTo, assignment())
	}

	// The reviewer is offered it; while they hold it the labeler still hears 403, not the 409 of a held job.
	if got := take(t, reviewer, app, nil, http.StatusOK); got.Job.Id != id {
		t.Fatalf("the reviewer was offered job %d, want %d", got.Job.Id, id)
	}
	label(t, labeler, app, id, `{"label": "stolen"}`, http.StatusForbidden)
	label(t, reviewer, app, id, `{"label": "greeting"}`, http.StatusOK)
	job = f.waitJob(t, app, id, "COMPLETED")
	if r := asMap(t, job.Response); r["label"] != "greeting" || r["approved"] != true {
		t.Fatalf("response %v, want the reviewer's label", r)
	}
	var by uuid.UUID
	var approvals int
	if err := f.env.DB.QueryRow(`SELECT completed_by, approvals FROM human_review_tasks WHERE id = $1`, review).Scan(&by, &approvals); err != nil ||
		by != reviewer.UserID || approvals != 1 || assignment() != "completed" {
		t.Fatalf("review completed by %s with %d approvals, the reviewer's assignment %s (%v)", by, approvals, assignment(), err)
	}

	// An administrator of the organization may label it, as on /api.
	other := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "bye"})})
	f.waitJob(t, app, other, "SUSPENDED")
	if got := take(t, f.admin, app, nil, http.StatusOK); got.Job.Id != other {
		t.Fatalf("the administrator was offered job %d, want %d", got.Job.Id, other)
	}
	label(t, f.admin, app, other, `{"label": "farewell"}`, http.StatusOK)

	// A review that names nobody (its users are the flow's creator by default) is every labeler's.
	open := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [{"name": "check", "type": "human_review"}], "edges": []}`})
	f.worker(t, open, labeler, "LABELER")
	free := f.submit(t, open, v1api.JobInput{Input: doc(map[string]any{"text": "any"})})
	f.waitJob(t, open, free, "SUSPENDED")
	if got := take(t, labeler, open, nil, http.StatusOK); got.Job.Id != free {
		t.Fatalf("the labeler was offered job %d, want %d", got.Job.Id, free)
	}
	label(t, labeler, open, free, `{"label": "mine"}`, http.StatusOK)
	f.waitJob(t, open, free, "COMPLETED")
}

// TestLabelQueuePassesOverReservedJobs: when the first job of the queue is reserved for another user's
// review, the label route offers the caller the next job it may label, and the reserved one stays free.
func TestLabelQueuePassesOverReservedJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	reviewer := f.env.User(t, f.org, auth.RoleAppUser)
	app := f.newApp(t, appOpts{def: reviewedFlow(reviewer.UserID)})
	labeler := f.member(t, app, "LABELER")
	reserved := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hi"})})
	f.waitJob(t, app, reserved, "SUSPENDED")

	// The flow's next version names nobody: the jobs it runs are every labeler's.
	var flow uuid.UUID
	if err := f.env.DB.Get(&flow, `SELECT api_id FROM apps WHERE id = $1`, app); err != nil {
		t.Fatal(err)
	}
	def := json.RawMessage(`{"version": 1, "tasks": [{"name": "check", "type": "human_review"}], "edges": []}`)
	res, err := f.admin.API.UpdateFlowDefinitionWithResponse(ctx, flow, platformapi.FlowDefinitionUpdate{Definition: def})
	testkit.Expect(t, res, err, http.StatusOK)
	open := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "bye"})})
	f.waitJob(t, app, open, "SUSPENDED")

	if got := take(t, labeler, app, nil, http.StatusOK); got.Job.Id != open {
		t.Fatalf("the labeler was offered job %d, want %d (job %d is reserved)", got.Job.Id, open, reserved)
	}
	if job := f.waitJob(t, app, reserved, "SUSPENDED"); job.AssignedTo != nil {
		t.Fatalf("the reserved job is held by %v", job.AssignedTo)
	}
}
