package gallery_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// caller is the given user of that name, or the flow's creator for "".
func (w *world) caller(name string) *testkit.Caller {
	w.t.Helper()
	if name == "" {
		return w.owner
	}
	c := w.users[name]
	if c == nil {
		w.t.Fatalf("%s: %q is not one of given.users", w.ex.file, name)
	}
	return c
}

// act takes the example's steps on the execution, in order: reviews and outside workers' claims.
func (w *world) act(exec uuid.UUID) {
	t := w.t
	var worker *testkit.Caller
	for i, s := range w.ex.Steps {
		switch {
		case s.Review != "" && s.Claim == "" && s.Label == nil:
			w.review(exec, s)
		case s.Claim != "" && s.Review == "" && s.Label == nil:
			if worker == nil {
				worker = w.env.KeyCaller(t, w.owner.OrgID, auth.RoleIntegration)
			}
			w.claim(worker, exec, s)
		default:
			t.Fatalf("%s: step %d must be one review or one claim", w.ex.file, i)
		}
	}
}

// review waits until the review of the task is open, then completes it as the step's person with the
// reviewed object as it was shown, changed where the step sets values.
func (w *world) review(exec uuid.UUID, s step) {
	t := w.t
	var open *platformapi.HumanReviewTaskResponse
	eventually(t, "the review of "+s.Review, func() bool {
		res, err := w.owner.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: &exec})
		testkit.Expect(t, res, err, http.StatusOK)
		for _, r := range res.JSON200.HumanReviewTasks {
			if r.TargetTaskName == s.Review && (r.Status == platformapi.HumanReviewTaskStatusPending ||
				r.Status == platformapi.HumanReviewTaskStatusInProgress) {
				open = &r
				return true
			}
		}
		return false
	})
	var shown any
	if open.TaskMetadata != nil {
		shown = (*open.TaskMetadata)["source_output"]
	}
	if _, ok := shown.(map[string]any); !ok {
		shown = map[string]any{"value": shown}
	}
	for path, v := range s.Set {
		shown = setPath(t, shown, path, v)
	}
	approve := s.Approve == nil || *s.Approve
	res, err := w.caller(s.By).API.CompleteHumanReviewTaskWithResponse(ctx, open.Id, platformapi.HumanReviewTaskCompleteRequest{
		ReviewResult: approve, ReviewedOutput: shown.(map[string]any)})
	testkit.Expect(t, res, err, http.StatusOK)
}

// claim claims the next attempt of the step's queue as the worker, checks what it received, and reports
// the step's output for it.
func (w *world) claim(worker *testkit.Caller, exec uuid.UUID, s step) {
	t := w.t
	var got *platformapi.ClaimedTaskExecution
	eventually(t, "an attempt to claim from queue "+s.Claim, func() bool {
		res, err := worker.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "gallery-worker", Queue: &s.Claim})
		if err != nil {
			t.Fatal(err)
		}
		switch res.StatusCode() {
		case http.StatusOK:
			got = res.JSON200
			return true
		case http.StatusNoContent:
			return false
		}
		t.Fatalf("claim answered %d: %s", res.StatusCode(), res.Body)
		return false
	})
	a := got.TaskExecution
	if a.FlowExecutionId != exec {
		t.Fatalf("claimed an attempt of execution %s, want %s", a.FlowExecutionId, exec)
	}
	matches(t, "the claimed attempt", asValue(t, got), s.Receives)
	res, err := worker.API.RecordTaskExecutionWithResponse(ctx, platformapi.CreateTaskExecutionRequest{FlowExecutionId: exec,
		TaskName: a.TaskName, TaskExecutionIdx: a.TaskExecutionIdx, Status: platformapi.TaskExecutionStatusCompleted, Output: s.Report})
	testkit.Expect(t, res, err, http.StatusOK)
}

// job is the /v1 app and job of the labeling example.
type job struct {
	app uuid.UUID
	id  int64
}

// submitJob creates a /v1 app bound to the flow, makes each person a step labels as a LABELER of it,
// submits the sample input as a job, and has them label it through /v1; it returns the job's execution.
func (w *world) submitJob() uuid.UUID {
	t := w.t
	app, err := w.owner.V1.CreateAppWithResponse(ctx, nil, v1api.AppInput{Name: new("gallery " + w.ex.file),
		ApiId: nullable.NewNullableWithValue(w.flow)})
	testkit.Expect(t, app, err, http.StatusCreated)
	w.job.app = app.JSON201.Id
	var labelers []string
	for _, s := range w.ex.Steps {
		if s.Label == nil || s.Review != "" || s.Claim != "" {
			t.Fatalf("%s: the steps of a /v1 example are labels", w.ex.file)
		}
		if !slices.Contains(labelers, s.By) {
			labelers = append(labelers, s.By)
			me, err := w.caller(s.By).API.GetMyProfileWithResponse(ctx)
			testkit.Expect(t, me, err, http.StatusOK)
			add, err := w.owner.V1.AddAppWorkerWithResponse(ctx, w.job.app, me.JSON200.WorkerId, nil, v1api.CreateWorkerApp{Role: "LABELER"})
			testkit.Expect(t, add, err, http.StatusOK)
		}
	}
	sub, err := w.owner.V1.SubmitJobWithResponse(ctx, w.job.app, nil, v1api.JobInput{Input: w.ex.Input})
	testkit.Expect(t, sub, err, http.StatusCreated)
	w.job.id = sub.JSON201.Id
	for _, s := range w.ex.Steps {
		labeler := w.caller(s.By)
		eventually(t, "a job to label", func() bool {
			res, err := labeler.V1.GetJobToLabelWithResponse(ctx, w.job.app, nil)
			if err != nil {
				t.Fatal(err)
			}
			switch res.StatusCode() {
			case http.StatusOK:
				if res.JSON200.Job.Id != w.job.id {
					t.Fatalf("the label route offered job %d, want %d", res.JSON200.Job.Id, w.job.id)
				}
				return true
			case http.StatusNoContent:
				return false
			}
			t.Fatalf("label answered %d: %s", res.StatusCode(), res.Body)
			return false
		})
		res, err := labeler.V1.SubmitJobResponseWithResponse(ctx, w.job.app, w.job.id, nil, v1api.JobResponseInput{Response: s.Label})
		testkit.Expect(t, res, err, http.StatusOK)
	}
	return *sub.JSON201.FlowExecutionId
}

// decodeStrict decodes raw into v, refusing fields v does not have.
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
