package jobs_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func (f *fx) update(t *testing.T, app uuid.UUID, in v1api.AppInput) {
	t.Helper()
	res, err := f.admin.V1.UpdateAppWithResponse(ctx, app, nil, in)
	testkit.Expect(t, res, err, http.StatusOK)
}

func limit(n int) *v1api.AppSettings {
	return &v1api.AppSettings{MaxRunningJobs: nullable.NewNullableWithValue(n)}
}

// TestPendingJobsWaitForRoom: on an app with max_running_jobs, jobs beyond the limit wait PENDING and
// start, highest priority first and then oldest, as room appears; one that ends makes room for the next.
func TestPendingJobsWaitForRoom(t *testing.T) {
	t.Parallel()
	f := setup(t)
	// Submitted while the app is paused, the jobs all wait; ACTIVE, it admits two of them: the highest
	// priority, then the older of two equal ones.
	app := f.newApp(t, appOpts{flow: true, status: "PAUSED", settings: `{"max_running_jobs": 2}`}) // executions that wait
	var ids []int64
	for _, p := range []int{1, 5, 9, 5, 3} {
		ids = append(ids, f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{}), Priority: new(p)}))
	}
	active := v1api.AppStatus("ACTIVE")
	f.update(t, app, v1api.AppInput{Status: &active})
	f.waitJob(t, app, ids[2], "SCHEDULED")
	f.waitJob(t, app, ids[1], "SCHEDULED")
	time.Sleep(300 * time.Millisecond) // admission has had every chance to overstep
	f.wantStatuses(t, app, ids, "PENDING", "SCHEDULED", "SCHEDULED", "PENDING", "PENDING")

	// More room admits the next by priority.
	f.update(t, app, v1api.AppInput{Settings: limit(3)})
	f.waitJob(t, app, ids[3], "SCHEDULED")
	f.update(t, app, v1api.AppInput{Settings: limit(4)})
	f.waitJob(t, app, ids[4], "SCHEDULED")
	f.wantStatuses(t, app, ids, "PENDING", "SCHEDULED", "SCHEDULED", "SCHEDULED", "SCHEDULED")
	if h := f.history(t, ids[2], "STATUS_CHANGED"); len(h) != 1 || h[0] != "PENDING>SCHEDULED" {
		t.Fatalf("history of an admitted job: %v", h)
	}

	// Jobs that end make room: with a limit of one, quick jobs run one after another, all of them.
	quick := f.newApp(t, appOpts{settings: `{"max_running_jobs": 1}`, def: `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`})
	var done []int64
	for range 4 {
		done = append(done, f.submit(t, quick, v1api.JobInput{Input: doc(map[string]any{"x": 1})}))
	}
	for _, id := range done {
		f.waitJob(t, quick, id, "COMPLETED")
	}
}

// TestPausedAppJobsStartWhenActive: a PAUSED app's jobs wait PENDING with no execution, and start when
// the app is ACTIVE again.
func TestPausedAppJobsStartWhenActive(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{flow: true, status: "PAUSED"})
	id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{})})
	time.Sleep(300 * time.Millisecond)
	if job := f.waitJob(t, app, id, "PENDING"); job.FlowExecutionId != nil {
		t.Fatalf("a paused app's job has an execution: %+v", job)
	}
	active := v1api.AppStatus("ACTIVE")
	f.update(t, app, v1api.AppInput{Status: &active})
	if job := f.waitJob(t, app, id, "SCHEDULED"); job.FlowExecutionId == nil {
		t.Fatalf("the job started without an execution: %+v", job)
	}
}

// TestJobsExpire: a job past its time to live expires with its execution stopped, whether it was
// running or waiting PENDING.
func TestJobsExpire(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{flow: true})
	running := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{}), TtlSeconds: new(3600)})
	paused := f.newApp(t, appOpts{flow: true, status: "PAUSED"})
	pending := f.submit(t, paused, v1api.JobInput{Input: doc(map[string]any{}), TtlSeconds: new(3600)})
	kept := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{}), TtlSeconds: new(3600)})
	if _, err := f.env.DB.Exec(`UPDATE jobs SET expires_at = now() - interval '1 second' WHERE id IN ($1, $2)`, running, pending); err != nil {
		t.Fatal(err)
	}
	job := f.waitJob(t, app, running, "EXPIRED") // the sweep runs every 2 s
	if job.ProcessingState != "ERROR" || job.FlowExecutionId == nil {
		t.Fatalf("expired job %+v", job)
	}
	var status, why string
	if err := f.env.DB.QueryRow(`SELECT status, error->>'type' FROM flow_executions WHERE id = $1`, *job.FlowExecutionId).Scan(&status, &why); err != nil ||
		status != "failed" || why != "stopped" {
		t.Fatalf("the expired job's execution is %s (%s, %v), want stopped", status, why, err)
	}
	f.waitJob(t, paused, pending, "EXPIRED")
	f.waitJob(t, app, kept, "SCHEDULED")
	if h := f.history(t, running, "STATUS_CHANGED"); len(h) != 1 || h[0] != "SCHEDULED>EXPIRED" {
		t.Fatalf("history %v", h)
	}
}

// wantStatuses checks the statuses of jobs, in order.
func (f *fx) wantStatuses(t *testing.T, app uuid.UUID, ids []int64, want ...string) {
	t.Helper()
	for i, id := range ids {
		res, err := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
		testkit.Expect(t, res, err, http.StatusOK)
		if string(res.JSON200.Status) != want[i] {
			t.Fatalf("job %d (#%d) is %s, want %s", id, i, res.JSON200.Status, want[i])
		}
	}
}

// TestFlowChangeRerunsUnfinishedJobs: changing an app's flow with rerun_unfinished_jobs (202) stops and
// detaches the executions of its unfinished jobs, and the jobs run again on the new flow.
func TestFlowChangeRerunsUnfinishedJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{flow: true}) // executions that wait
	var ids []int64
	var old []uuid.UUID
	for range 2 {
		id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"n": 2})})
		ids = append(ids, id)
		old = append(old, *f.waitJob(t, app, id, "SCHEDULED").FlowExecutionId)
	}
	next := testkit.NewFlow(t, f.env.User(t, f.org, auth.RoleOrgAdmin), `{"version": 1, "tasks": [{"name": "double", "type": "transform",
		"parameters": {"expression": "{n: (.n * 2)}"}}], "edges": []}`)
	yes := true
	res, err := f.admin.V1.UpdateAppWithResponse(ctx, app, nil, v1api.AppInput{ApiId: nullable.NewNullableWithValue(next),
		RerunUnfinishedJobs: &yes})
	testkit.Expect(t, res, err, http.StatusAccepted)
	for i, id := range ids {
		job := f.waitJob(t, app, id, "COMPLETED")
		if r := asMap(t, job.Response); r["n"] != 4.0 || *job.FlowExecutionId == old[i] {
			t.Fatalf("job %d after the flow change: response %v, execution %s (was %s)", id, r, job.FlowExecutionId, old[i])
		}
		var status, why string
		var jobID *int64
		if err := f.env.DB.QueryRow(`SELECT status, error->>'type', job_id FROM flow_executions WHERE id = $1`, old[i]).
			Scan(&status, &why, &jobID); err != nil || status != "failed" || why != "stopped" || jobID != nil {
			t.Fatalf("the old execution is %s (%s), job %v (%v): want stopped and detached", status, why, jobID, err)
		}
	}
}
