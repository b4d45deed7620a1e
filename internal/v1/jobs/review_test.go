package jobs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// reviewedFlow is prepare → check (a human review by reviewer) → finish, the shape of a labeling app.
func reviewedFlow(reviewer uuid.UUID) string {
	return fmt.Sprintf(`{"version": 1, "tasks": [
		{"name": "prepare", "type": "transform", "parameters": {"expression": "{text: .text}"}},
		{"name": "check", "type": "human_review", "parameters": {"assigned_users": [%q]}},
		{"name": "finish", "type": "transform", "parameters": {"expression": "{label: .label, approved: .review_result}"}}],
		"edges": [{"source": "prepare", "target": "check"}, {"source": "check", "target": "finish"}]}`, reviewer)
}

// TestLabelingIsTheHumanStep: a job whose execution reaches a human_review task is SUSPENDED and offered
// by the label route; the labeler's response completes the review and the flow goes on to COMPLETED
// with the flow's output. Completing the review through /api instead has the same effect on the job.
func TestLabelingIsTheHumanStep(t *testing.T) {
	t.Parallel()
	f := setup(t)
	reviewer := f.env.User(t, f.org, auth.RoleAppUser)
	app := f.newApp(t, appOpts{def: reviewedFlow(reviewer.UserID)})
	// The review names its reviewer, so the labeler is that reviewer as a LABELER of the app (anyone else
	// is kept out: TestLabelingKeepsTheReviewRule).
	labeler := f.worker(t, app, reviewer, "LABELER")

	// Through /v1: lease, then respond.
	id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hi"})})
	f.waitJob(t, app, id, "SUSPENDED")
	got := take(t, labeler, app, nil, http.StatusOK)
	if got.Job.Id != id {
		t.Fatalf("the label route offered job %d, want %d", got.Job.Id, id)
	}
	res, err := labeler.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{
		Response: json.RawMessage(`{"label": "greeting"}`)})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Status == "SUSPENDED" || res.JSON200.LabeledBy == nil || res.JSON200.AssignedTo != nil {
		t.Fatalf("after the label: %s, labeled by %v, held by %v", res.JSON200.Status, res.JSON200.LabeledBy, res.JSON200.AssignedTo)
	}
	job := f.waitJob(t, app, id, "COMPLETED")
	if r := asMap(t, job.Response); len(r) != 2 || r["label"] != "greeting" || r["approved"] != true {
		t.Fatalf("response %v, want the flow's output after the review", r)
	}
	if h := f.history(t, id, "STATUS_CHANGED"); len(h) != 4 || h[1] != "IN_PROGRESS>SUSPENDED" || h[2] != "SUSPENDED>IN_PROGRESS" {
		t.Fatalf("status history %v", h)
	}
	var labeled int
	if err := f.env.DB.Get(&labeled, `SELECT count(*) FROM job_history WHERE job_id = $1 AND event = 'LABELED'`, id); err != nil || labeled != 1 {
		t.Fatalf("%d LABELED events (%v)", labeled, err)
	}
	reviews, err := reviewer.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: job.FlowExecutionId})
	testkit.Expect(t, reviews, err, http.StatusOK)
	if r := reviews.JSON200.HumanReviewTasks; len(r) != 1 || r[0].Status != platformapi.HumanReviewTaskStatusCompleted ||
		(*r[0].ReviewedOutput)["label"] != "greeting" || *r[0].CompletedBy != labeler.UserID {
		t.Fatalf("the review through /api: %+v", r)
	}
	// A job that waits for no review takes no label.
	again, err := labeler.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: json.RawMessage(`{}`)})
	testkit.Expect(t, again, err, http.StatusForbidden) // correcting a COMPLETED job needs REVIEWER

	// Through /api: the assigned reviewer completes the review; the job follows.
	other := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "bye"})})
	job = f.waitJob(t, app, other, "SUSPENDED")
	reviews, err = reviewer.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: job.FlowExecutionId})
	testkit.Expect(t, reviews, err, http.StatusOK)
	done, err := reviewer.API.CompleteHumanReviewTaskWithResponse(ctx, reviews.JSON200.HumanReviewTasks[0].Id,
		platformapi.HumanReviewTaskCompleteRequest{ReviewResult: false, ReviewedOutput: map[string]any{"label": "farewell"}})
	testkit.Expect(t, done, err, http.StatusOK)
	job = f.waitJob(t, app, other, "COMPLETED")
	if r := asMap(t, job.Response); r["label"] != "farewell" || r["approved"] != false || job.LabeledBy == nil {
		t.Fatalf("after the review through /api: response %v, labeled by %v", r, job.LabeledBy)
	}
}

// asMap decodes a JSON document held as any value.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s is not an object", b)
	}
	return m
}
