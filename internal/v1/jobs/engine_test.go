package jobs_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// waitJob waits until the job has one of the statuses and returns it.
func (f *fx) waitJob(t *testing.T, app uuid.UUID, id int64, want ...v1api.JobStatus) *v1api.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
		testkit.Expect(t, res, err, http.StatusOK)
		for _, w := range want {
			if res.JSON200.Status == w {
				return res.JSON200
			}
		}
		if time.Now().After(deadline) {
			var execs []string
			_ = f.env.DB.Select(&execs, `SELECT status || ' ' || coalesce(error::text, '') FROM flow_executions WHERE job_id = $1
				UNION ALL SELECT kind || ' ' || state || ' ' || coalesce(errors::text, '') FROM river_job WHERE kind <> 'flow_task'`, id)
			t.Fatalf("job %d is %s, want one of %v; its execution: %v", id, res.JSON200.Status, want, execs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// events is all of the job's history as "EVENT from>to", in order.
func (f *fx) events(t *testing.T, id int64) string {
	t.Helper()
	var out []string
	if err := f.env.DB.Select(&out, `SELECT event || ' ' || from_status || '>' || to_status FROM job_history
		WHERE job_id = $1 ORDER BY id`, id); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "; ")
}

// history is the job's STATUS_CHANGED and PROCESSING_STATE_CHANGED events as "from>to", in order.
func (f *fx) history(t *testing.T, id int64, event string) []string {
	t.Helper()
	var out []string
	if err := f.env.DB.Select(&out, `SELECT from_status || '>' || to_status FROM job_history WHERE job_id = $1 AND event = $2
		ORDER BY id`, id, event); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJobsRunAsExecutions: a job of an app bound to a flow starts an execution of it with the job's
// input; the job moves with the execution, in the transactions that move it, and its response is the
// execution's output.
func TestJobsRunAsExecutions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
		{"name": "b", "type": "transform", "parameters": {"expression": "{n: (.n * 10)}"}}],
		"edges": [{"source": "a", "target": "b"}]}`})
	res, err := f.admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: doc(map[string]any{"n": 1})})
	testkit.Expect(t, res, err, http.StatusCreated)
	if res.JSON201.Status != "SCHEDULED" || res.JSON201.FlowExecutionId == nil {
		t.Fatalf("submitted %+v, want SCHEDULED with its execution", res.JSON201)
	}
	job := f.waitJob(t, app, res.JSON201.Id, "COMPLETED", "FAILED")
	if job.Status != "COMPLETED" || job.ProcessingState != "DONE" || job.CompletedAt == nil || *job.FlowExecutionId != *res.JSON201.FlowExecutionId {
		t.Fatalf("job %+v", job)
	}
	if b, _ := json.Marshal(job.Response); string(b) != `{"n":20}` {
		t.Fatalf("response %s, want the output of the flow's last task", b)
	}
	exec := testkit.WaitForExecution(t, f.admin, *job.FlowExecutionId, platformapi.ExecutionStatusCompleted)
	if exec.Input["n"] != 1.0 || exec.OrganizationId != f.org {
		t.Fatalf("execution %+v: the job's input, in the job's organization", exec)
	}
	if h := f.history(t, job.Id, "STATUS_CHANGED"); len(h) != 2 || h[0] != "SCHEDULED>IN_PROGRESS" || h[1] != "IN_PROGRESS>COMPLETED" {
		t.Fatalf("status history %v", h)
	}
	if h := f.history(t, job.Id, "PROCESSING_STATE_CHANGED"); len(h) != 2 || h[0] != "QUEUED>PROCESSING" || h[1] != "PROCESSING>DONE" {
		t.Fatalf("processing history %v", h)
	}
}

// TestJobsFollowTheirExecution: a failing execution fails its job with its message, one waiting for a
// review suspends it, and one stopped through /api cancels it.
func TestJobsFollowTheirExecution(t *testing.T) {
	t.Parallel()
	f := setup(t)
	failing := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [{"name": "a", "type": "transform",
		"parameters": {"expression": "error(\"no luck\")"}}], "edges": []}`})
	job := f.waitJob(t, failing, f.submit(t, failing, v1api.JobInput{Input: doc(map[string]any{})}), "FAILED", "COMPLETED")
	if job.Status != "FAILED" || job.ProcessingState != "ERROR" || job.Error == nil || *job.Error != "task a: error: no luck" {
		t.Fatalf("job %s %s (error %q), want FAILED naming the task and its error", job.Status, job.ProcessingState, *job.Error)
	}
	// A first task that ends its execution quickly still takes the job through IN_PROGRESS (the outcome's
	// transaction marks the execution running), as the job statuses' transitions say.
	if h := f.history(t, job.Id, "STATUS_CHANGED"); len(h) != 2 || h[0] != "SCHEDULED>IN_PROGRESS" || h[1] != "IN_PROGRESS>FAILED" {
		t.Fatalf("status history of a job whose first task failed: %v", h)
	}

	reviewed := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [{"name": "check", "type": "human_review"}], "edges": []}`})
	job = f.waitJob(t, reviewed, f.submit(t, reviewed, v1api.JobInput{Input: doc(map[string]any{"a": 1})}), "SUSPENDED")
	if job.ProcessingState != "AWAITING_HUMAN" {
		t.Fatalf("job %+v, want AWAITING_HUMAN", job)
	}
	if h := f.history(t, job.Id, "STATUS_CHANGED"); len(h) != 2 || h[0] != "SCHEDULED>IN_PROGRESS" || h[1] != "IN_PROGRESS>SUSPENDED" {
		t.Fatalf("status history of a job whose first task is a review: %v", h)
	}

	waiting := f.newApp(t, appOpts{flow: true})
	id := f.submit(t, waiting, v1api.JobInput{Input: doc(map[string]any{})})
	job = f.waitJob(t, waiting, id, "SCHEDULED")
	stop, err := f.admin.API.StopFlowExecutionWithResponse(ctx, *job.FlowExecutionId)
	testkit.Expect(t, stop, err, http.StatusOK)
	job = f.waitJob(t, waiting, id, "CANCELED")
	if job.ProcessingState != "ERROR" {
		t.Fatalf("job %+v, want ERROR", job)
	}
}

// TestReviewWaitsWhenSubmitted: a job whose flow reshapes its input and then asks a person is SUSPENDED
// by the time its submission answers: the first task runs before the submission's transaction and the
// review opens in it (see run.Prepared), so a labeler can take the job at once, and the job still
// passes through IN_PROGRESS.
func TestReviewWaitsWhenSubmitted(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [
		{"name": "prepare", "type": "transform", "parameters": {"expression": "{text: .text}"}},
		{"name": "check", "type": "human_review"}], "edges": [{"source": "prepare", "target": "check"}]}`})
	id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hello", "other": 1})})
	res, err := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Status != "SUSPENDED" || res.JSON200.ProcessingState != "AWAITING_HUMAN" {
		t.Fatalf("job %s %s right after its submission, want SUSPENDED AWAITING_HUMAN", res.JSON200.Status, res.JSON200.ProcessingState)
	}
	// The submission writes the job once, after the start (started.go), and its history still reads as
	// following each move of the execution did.
	want := "STATUS_CHANGED SCHEDULED>IN_PROGRESS; PROCESSING_STATE_CHANGED QUEUED>PROCESSING; " +
		"STATUS_CHANGED IN_PROGRESS>SUSPENDED; PROCESSING_STATE_CHANGED PROCESSING>AWAITING_HUMAN"
	if got := f.events(t, id); got != want {
		t.Fatalf("history %s, want %s", got, want)
	}
	var input string
	if err := f.env.DB.Get(&input, `SELECT t.input::text FROM human_review_tasks r JOIN jobs j ON j.flow_execution_id = r.flow_execution_id
		JOIN task_executions t ON t.flow_execution_id = r.flow_execution_id AND t.task_name = r.target_task_name
		WHERE j.id = $1`, id); err != nil || input != `{"text": "hello"}` {
		t.Fatalf("the review is of %s (%v), want the first task's output", input, err)
	}
}

// TestJobSubmissionIsOneTransaction: a refused submission (no credits; a flow with no version that can
// run) writes neither a job nor an execution.
func TestJobSubmissionIsOneTransaction(t *testing.T) {
	t.Parallel()
	f := setup(t)
	poor := f.env.Org(t)
	app := f.newApp(t, appOpts{org: poor, flow: true})
	admin := f.env.User(t, poor, auth.RoleOrgAdmin)
	res, err := admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: doc(map[string]any{})})
	testkit.Expect(t, res, err, http.StatusPaymentRequired)

	broken := f.newApp(t, appOpts{flow: true})
	if _, err := f.env.DB.Exec(`UPDATE flow_versions SET valid = false WHERE flow_id = (SELECT api_id FROM apps WHERE id = $1)`, broken); err != nil {
		t.Fatal(err)
	}
	res, err = f.admin.V1.SubmitJobWithResponse(ctx, broken, nil, v1api.JobInput{Input: doc(map[string]any{})})
	testkit.Expect(t, res, err, http.StatusConflict)
	var jobs, execs int
	if err := f.env.DB.QueryRow(`SELECT (SELECT count(*) FROM jobs WHERE app_id IN ($1, $2)),
		(SELECT count(*) FROM flow_executions WHERE job_app_id IN ($1, $2))`, app, broken).Scan(&jobs, &execs); err != nil ||
		jobs != 0 || execs != 0 {
		t.Fatalf("refused submissions left %d jobs and %d executions (%v)", jobs, execs, err)
	}
}

// TestCancelAndDeleteEndTheExecutions: canceling jobs by filter stops their running executions (their
// waiting attempts cancelled) in the same transaction, and the job stays CANCELED; deleting jobs
// deletes theirs. Nothing is left running for a final job.
func TestCancelAndDeleteEndTheExecutions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{flow: true}) // an external task nobody claims: the executions wait
	var ids []int64
	for range 4 {
		ids = append(ids, f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{})}))
	}
	execOf := func(id int64) (status, why string) {
		t.Helper()
		var e struct {
			Status string  `db:"status"`
			Why    *string `db:"why"`
		}
		if err := f.env.DB.Get(&e, `SELECT x.status, x.error->>'type' AS why FROM flow_executions x
			JOIN jobs j ON j.flow_execution_id = x.id WHERE j.id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if e.Why != nil {
			why = *e.Why
		}
		return e.Status, why
	}
	res, err := f.admin.V1.CancelJobsWithResponse(ctx, app, &v1api.CancelJobsParams{IdLessThan: new(ids[2])})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.Canceled != 2 {
		t.Fatalf("canceled %d, want 2", res.JSON200.Canceled)
	}
	for _, id := range ids[:2] {
		job := f.waitJob(t, app, id, "CANCELED")
		if s, why := execOf(job.Id); s != "failed" || why != "stopped" {
			t.Fatalf("job %d canceled, its execution %s (%s), want stopped", id, s, why)
		}
	}
	var waiting int
	if err := f.env.DB.Get(&waiting, `SELECT count(*) FROM task_executions t JOIN jobs j ON j.flow_execution_id = t.flow_execution_id
		WHERE j.id = ANY($1) AND t.status IN ('queued', 'running')`, pq.Array(ids[:2])); err != nil || waiting != 0 {
		t.Fatalf("%d attempts of canceled jobs still wait (%v)", waiting, err)
	}
	if s, _ := execOf(ids[2]); s != "queued" {
		t.Fatalf("a job outside the filter has its execution %s", s)
	}

	var execs []uuid.UUID
	if err := f.env.DB.Select(&execs, `SELECT flow_execution_id FROM jobs WHERE id = ANY($1) ORDER BY id`, pq.Array(ids[2:])); err != nil {
		t.Fatal(err)
	}
	del, err := f.admin.V1.DeleteJobsWithResponse(ctx, app, &v1api.DeleteJobsParams{})
	testkit.Expect(t, del, err, http.StatusOK)
	for _, x := range execs {
		var status string
		if err := f.env.DB.Get(&status, `SELECT status FROM flow_executions WHERE id = $1`, x); err != nil || status != "deleted" {
			t.Fatalf("the execution of a deleted job is %s (%v)", status, err)
		}
	}
}

// TestScoreIsTheModelConfidence: a job's score is the confidence its flow's output reports, and the app
// then answers that a score exists; outputs without one, or with one out of range or not a number,
// leave it null.
func TestScoreIsTheModelConfidence(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [
		{"name": "classify", "type": "transform", "parameters": {"expression": "{label: .text, confidence: .c, score: .s}"}}],
		"edges": []}`})
	none, err := f.admin.V1.CheckJobScoreExistsWithResponse(ctx, app, nil)
	testkit.Expect(t, none, err, http.StatusOK)
	if none.JSON200.Exists {
		t.Fatal("a score exists before any job")
	}
	cases := []struct {
		in   map[string]any
		want *float32
	}{
		{map[string]any{"text": "a", "c": 0.87}, new(float32(0.87))},
		{map[string]any{"text": "b", "c": "high", "s": 0.4}, new(float32(0.4))},
		{map[string]any{"text": "c", "c": 7}, nil},
		{map[string]any{"text": "d", "s": "x"}, nil},
		{map[string]any{"text": "e", "c": 1e300}, nil},
	}
	for _, c := range cases {
		id := f.submit(t, app, v1api.JobInput{Input: doc(c.in)})
		j := f.waitJob(t, app, id, "COMPLETED")
		if (j.Score == nil) != (c.want == nil) || (j.Score != nil && *j.Score != *c.want) {
			t.Errorf("input %v: score %v, want %v", c.in, j.Score, c.want)
		}
	}
	some, err := f.admin.V1.CheckJobScoreExistsWithResponse(ctx, app, nil)
	testkit.Expect(t, some, err, http.StatusOK)
	if !some.JSON200.Exists {
		t.Fatal("no score exists after a job with a confidence")
	}
}
