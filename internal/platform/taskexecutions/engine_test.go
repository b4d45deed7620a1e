package taskexecutions_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// externalDef has an outside worker fetch a text, which a transform then shapes.
const externalDef = `{"version": 1, "tasks": [
	{"name": "fetch", "type": "external", "parameters": {"queue": "ocr", "payload": {"lang": "en"}},
	 "retry": {"max_attempts": 2}},
	{"name": "shape", "type": "transform", "parameters": {"expression": "{got: .text}"}}
], "edges": [{"source": "fetch", "target": "shape"}]}`

// TestExternalTaskEndToEnd: a worker claims the external attempt (a second claimer gets nothing), keeps
// it with a heartbeat, reports its output, and the engine runs the next task and completes the execution.
func TestExternalTaskEndToEnd(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker, other := env.KeyCaller(t, org, auth.RoleIntegration), env.KeyCaller(t, org, auth.RoleIntegration)
	flow := testkit.NewFlow(t, user, externalDef)
	exec := start(t, env, user, flow, map[string]any{"page": 7})

	for _, q := range []string{"pdf", "default"} {
		if c := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w1", Queue: &q}); c != nil {
			t.Fatalf("a claim of queue %s took %+v", q, c)
		}
	}
	c := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w1", TaskNames: &[]string{"fetch"}, FlowId: &flow, Queue: new("ocr")})
	if c == nil {
		t.Fatal("nothing to claim")
	}
	a := c.TaskExecution
	if a.FlowExecutionId != exec || a.TaskName != "fetch" || a.TaskExecutionIdx != 0 || a.Status != platformapi.TaskExecutionStatusRunning ||
		a.StartedAt == nil || a.Input.(map[string]any)["page"] != 7.0 || c.FlowId != flow || c.FlowVersion != 1 || c.TaskType != "external" ||
		c.Parameters["queue"] != "ocr" || time.Until(c.LeaseExpiresAt) < 50*time.Second || time.Until(c.LeaseExpiresAt) > 61*time.Second {
		t.Fatalf("claimed %+v", c)
	}
	if again := claim(t, other, platformapi.TaskExecutionClaimRequest{Worker: "w2"}); again != nil {
		t.Fatalf("a second claimer took %+v", again)
	}
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusRunning)

	// A heartbeat starts the lease again from now.
	var before time.Time
	if err := env.DB.Get(&before, `UPDATE task_executions SET timeout_at = timeout_at - interval '30 seconds',
		updated_at = updated_at - interval '30 seconds' WHERE id = $1 RETURNING timeout_at`, a.Id); err != nil {
		t.Fatal(err)
	}
	record(t, worker, req(exec, "fetch", 0, platformapi.TaskExecutionStatusRunning, "", ""), http.StatusOK)
	var after time.Time
	if err := env.DB.Get(&after, `SELECT timeout_at FROM task_executions WHERE id = $1`, a.Id); err != nil {
		t.Fatal(err)
	}
	if d := after.Sub(before); d < 29*time.Second || d > 31*time.Second {
		t.Fatalf("the heartbeat moved the lease by %s, want 30 s", d)
	}

	done := record(t, worker, req(exec, "fetch", 0, platformapi.TaskExecutionStatusCompleted, "", `{"text": "hello"}`), http.StatusOK)
	if done.Status != platformapi.TaskExecutionStatusCompleted || done.Output.(map[string]any)["text"] != "hello" {
		t.Fatalf("reported %+v", done)
	}
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusCompleted)
	var raw json.RawMessage
	if err := env.DB.Get(&raw, `SELECT output FROM flow_executions WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	var output map[string]any
	if err := json.Unmarshal(raw, &output); err != nil || output["got"] != "hello" {
		t.Fatalf("execution output %s", raw)
	}

	// The list is newest first, each attempt with its task's active tags.
	tags, err := user.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: []platformapi.PatchFlowTaskTagsRequestItem{
		{Operation: platformapi.Add, FlowExecutionId: exec, TaskName: "fetch", Tag: "gone", TagType: "label"},
		{Operation: platformapi.Add, FlowExecutionId: exec, TaskName: "fetch", Tag: "checked", TagType: "label"},
		{Operation: platformapi.Remove, FlowExecutionId: exec, TaskName: "fetch", Tag: "gone", TagType: "label"},
	}})
	testkit.Expect(t, tags, err, http.StatusOK)
	got := list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})
	if len(got) != 2 || got[0].TaskName != "shape" || got[1].TaskName != "fetch" || len(got[0].Tags) != 0 ||
		len(got[1].Tags) != 1 || got[1].Tags[0].Tag != "checked" || got[0].Status != platformapi.TaskExecutionStatusCompleted {
		t.Fatalf("list %+v", got)
	}
	only := list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, TaskName: new("fetch"),
		Status: new(platformapi.TaskExecutionStatusCompleted)})
	none := list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, Status: new(platformapi.TaskExecutionStatusFailed)})
	if len(only) != 1 || only[0].TaskName != "fetch" || len(none) != 0 {
		t.Fatalf("filtered lists %+v / %+v", only, none)
	}
}

// TestFailuresAndCancels: a failed report is retried as the task's retry allows (the next attempt is
// queued and claimable), keeps the worker's error, and the last failure fails the execution; a cancel
// fails the task without retry; a queued attempt may be completed without a claim; attempts that a
// worker records on its own leave the execution alone.
func TestFailuresAndCancels(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	flow := testkit.NewFlow(t, user, externalDef)

	exec := start(t, env, user, flow, map[string]any{"page": 1})
	claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w"})
	f := req(exec, "fetch", 0, platformapi.TaskExecutionStatusFailed, "", "")
	f.Error = &platformapi.TaskExecutionError{Message: "scanner jammed", Type: new("IOError"), Traceback: new("at scan()")}
	failed := record(t, worker, f, http.StatusOK)
	if failed.Error == nil || failed.Error.Message != "scanner jammed" || failed.Error.Traceback == nil || *failed.Error.Type != "IOError" {
		t.Fatalf("failed attempt %+v", failed)
	}
	got := list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})
	if len(got) != 2 || got[0].TaskExecutionIdx != 1 || got[0].Status != platformapi.TaskExecutionStatusQueued ||
		got[0].Input.(map[string]any)["page"] != 1.0 || got[1].Status != platformapi.TaskExecutionStatusFailed {
		t.Fatalf("after a failure %+v", got)
	}
	// A worker's own record of another index is only a record.
	record(t, worker, req(exec, "fetch", 5, platformapi.TaskExecutionStatusQueued, "", ""), http.StatusCreated)
	record(t, worker, req(exec, "fetch", 5, platformapi.TaskExecutionStatusCompleted, "", `{"text": "no"}`), http.StatusOK)
	c := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w"})
	if c == nil || c.TaskExecution.TaskExecutionIdx != 1 {
		t.Fatalf("the retry was not claimable: %+v", c)
	}
	again := req(exec, "fetch", 1, platformapi.TaskExecutionStatusFailed, "", "")
	again.Error = &platformapi.TaskExecutionError{Message: "still jammed"}
	record(t, worker, again, http.StatusOK)
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusFailed)
	if c := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w"}); c != nil {
		t.Fatalf("an attempt of a failed execution was claimed: %+v", c)
	}

	// Completed straight from queued, without a claim: the engine moves on.
	exec = start(t, env, user, flow, map[string]any{"page": 2})
	d := record(t, worker, req(exec, "fetch", 0, platformapi.TaskExecutionStatusCompleted, "", `{"text": "direct"}`), http.StatusOK)
	if d.StartedAt == nil || d.CompletedAt == nil {
		t.Fatalf("completed from queued %+v", d)
	}
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusCompleted)

	// A cancel fails the task for good though its retry would allow another attempt.
	exec = start(t, env, user, flow, map[string]any{"page": 3})
	k := record(t, worker, req(exec, "fetch", 0, platformapi.TaskExecutionStatusCancelled, "", ""), http.StatusOK)
	if k.Status != platformapi.TaskExecutionStatusCancelled || k.Error != nil || k.StartedAt != nil {
		t.Fatalf("cancelled %+v", k)
	}
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusFailed)
	if n := len(list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})); n != 1 {
		t.Fatalf("%d attempts after a cancel, want 1", n)
	}
}

// TestReportAfterTheExecutionStopped: once another task failed the execution, the engine has cancelled
// the other attempt at once, and a late report of it answers 409 saying why; the attempt stays cancelled.
func TestReportAfterTheExecutionStopped(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := start(t, env, user, testkit.NewFlow(t, user, `{"version": 1, "tasks": [
		{"name": "a", "type": "external"}, {"name": "b", "type": "external"}], "edges": []}`), map[string]any{})
	for range 2 {
		if claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w"}) == nil {
			t.Fatal("nothing to claim")
		}
	}
	f := req(exec, "a", 0, platformapi.TaskExecutionStatusFailed, "", "")
	f.Error = &platformapi.TaskExecutionError{Message: "broken"}
	record(t, worker, f, http.StatusOK)
	testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusFailed)
	res, err := worker.API.RecordTaskExecutionWithResponse(ctx, req(exec, "b", 0, platformapi.TaskExecutionStatusCompleted, "", `{"late": true}`))
	testkit.Expect(t, res, err, http.StatusConflict)
	if !strings.Contains(string(res.Body), "the execution is failed") {
		t.Fatalf("a late report was refused with %s", res.Body)
	}
	got := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, TaskName: new("b")})
	if len(got) != 1 || got[0].Status != platformapi.TaskExecutionStatusCancelled || got[0].Output != nil || got[0].CompletedAt == nil {
		t.Fatalf("the late attempt is %+v", got)
	}
}

// TestReportedOutputConditions: a report's output whose edges out have conditions is decided after the
// report's transaction commits: the reply shows the attempt still running, the execution then moves on
// as the condition says, and a condition that never ends answers the report at once and then fails the
// attempt with limit_exceeded.
func TestReportedOutputConditions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	def := func(cond string) string {
		return `{"version": 1, "tasks": [
			{"name": "fetch", "type": "external", "parameters": {"queue": "ocr"}},
			{"name": "shape", "type": "transform", "parameters": {"expression": "{got: .text}"}}
		], "edges": [{"source": "fetch", "target": "shape", "condition": "` + cond + `"}]}`
	}
	for _, c := range []struct{ cond, want string }{
		{`.text == \"hello\"`, "completed"},
		{"reduce range(1e18) as $i (0; .) | . == 0", "failed"},
	} {
		exec := start(t, env, user, testkit.NewFlow(t, user, def(c.cond)), map[string]any{})
		if claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "w1", Queue: new("ocr")}) == nil {
			t.Fatal("nothing to claim")
		}
		t0 := time.Now()
		done := record(t, worker, req(exec, "fetch", 0, platformapi.TaskExecutionStatusCompleted, "", `{"text": "hello"}`), http.StatusOK)
		if took := time.Since(t0); took > 500*time.Millisecond || done.Status != platformapi.TaskExecutionStatusRunning {
			t.Fatalf("%s: the report took %s and replied %s", c.cond, took, done.Status)
		}
		x := testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
		var attempt struct {
			Status string `db:"status"`
			Type   string `db:"type"`
		}
		if err := env.DB.Get(&attempt, `SELECT status, coalesce(error->>'type', '') AS type FROM task_executions
			WHERE flow_execution_id = $1 AND task_name = 'fetch'`, exec); err != nil {
			t.Fatal(err)
		}
		switch {
		case string(x.Status) != c.want:
			t.Fatalf("%s: the execution is %s", c.cond, x.Status)
		case c.want == "completed" && (attempt.Status != "completed" || x.Output.(map[string]any)["got"] != "hello"):
			t.Fatalf("%s: attempt %+v, output %v", c.cond, attempt, x.Output)
		case c.want == "failed" && (attempt.Status != "failed" || attempt.Type != "limit_exceeded"):
			t.Fatalf("%s: attempt %+v", c.cond, attempt)
		}
	}
}
