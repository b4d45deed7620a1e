package monitor_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestMetricsAfterActivity: requests, an export that mails its link, a flow execution and /v1 jobs
// move exactly the series that document them. Each server has its own registry, so the counts are
// this test's alone.
func TestMetricsAfterActivity(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	staff := env.User(t, org, auth.RoleBackoffice)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	url := env.URL + "/metrics"
	ctx := context.Background()

	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'metrics app') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	env.DB.MustExec(`INSERT INTO jobs (organization_id, app_id, status, processing_state, input)
		VALUES ($1, $2, 'SCHEDULED', 'AWAITING_HUMAN', '{}'), ($1, $2, 'SCHEDULED', 'AWAITING_HUMAN', '{}'),
		       ($1, $2, 'COMPLETED', 'DONE', '{}')`, org, app)

	for range 3 {
		res, err := admin.V1.GetAppWithResponse(ctx, app, nil)
		testkit.Expect(t, res, err, http.StatusOK)
	}
	missing, err := admin.V1.GetAppWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	if res, err := http.Get(env.URL + "/no/such/route/" + uuid.NewString()); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}

	// An export whose link is mailed: the export's job, the mail's job and the delivery.
	exp, err := admin.V1.ExportJobResponsesWithResponse(ctx, app, &v1api.ExportJobResponsesParams{SendEmail: new(true)},
		v1api.AppInstanceEmail{Email: new(openapi_types.Email("ops@example.com"))})
	testkit.Expect(t, exp, err, http.StatusAccepted)

	// A flow of two transforms.
	if err := credits.Grant(ctx, env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	flow, err := admin.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "two steps",
		Definition: json.RawMessage(`{"version": 1, "tasks": [
			{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
			{"name": "b", "type": "transform", "parameters": {"expression": "{n: (.n * 2)}"}}],
			"edges": [{"source": "a", "target": "b"}]}`)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	x, err := admin.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow.JSON201.Id,
		Input: map[string]any{"n": 1}})
	testkit.Expect(t, x, err, http.StatusCreated)
	testkit.WaitForExecution(t, admin, x.JSON201.Id, platformapi.ExecutionStatusCompleted)

	// A job is counted once its Work returns: what it did inside (the export, the delivery) counted
	// before. The mail's job may finish before the export's job is counted, so both are waited for.
	waitFor(t, url, staff.Token, "loopwork_river_jobs_worked_total", map[string]string{"kind": "mail_send", "outcome": "completed"}, 1)
	s := waitFor(t, url, staff.Token, "loopwork_river_jobs_worked_total", map[string]string{"kind": "export_file", "outcome": "completed"}, 1)

	// Requests, by the contract's operationId.
	if v := s.must(t, "loopwork_http_requests_total", map[string]string{"operation": "getApp", "method": "GET", "code": "200"}); v != 3 {
		t.Errorf("getApp 200: %v, want 3", v)
	}
	if v := s.must(t, "loopwork_http_requests_total", map[string]string{"operation": "getApp", "code": "404"}); v != 1 {
		t.Errorf("getApp 404: %v, want 1", v)
	}
	if v := s.must(t, "loopwork_http_requests_total", map[string]string{"operation": "exportJobResponses", "code": "202"}); v != 1 {
		t.Errorf("exportJobResponses 202: %v, want 1", v)
	}
	if v := s.must(t, "loopwork_http_requests_total", map[string]string{"operation": "unmatched", "method": "GET", "code": "404"}); v != 1 {
		t.Errorf("unmatched: %v, want 1", v)
	}
	if v := s.must(t, "loopwork_http_request_duration_seconds", map[string]string{"operation": "getApp", "method": "GET"}); v != 4 {
		t.Errorf("getApp latency observations: %v, want 4", v)
	}
	// The scrape itself is in flight while it is answered.
	if v := s.must(t, "loopwork_http_requests_in_flight", nil); v < 1 {
		t.Errorf("in flight during the scrape: %v", v)
	}
	for _, m := range s["loopwork_http_requests_total"].Metric {
		for _, l := range m.Label {
			if l.GetName() == "operation" && (l.GetValue() == "" || l.GetValue()[0] == '/') {
				t.Errorf("a path as operation label: %q", l.GetValue())
			}
		}
	}

	// The engine: both transforms ran and completed.
	if v := s.must(t, "loopwork_engine_task_attempts_total", map[string]string{"type": "transform", "outcome": "completed"}); v != 2 {
		t.Errorf("transform attempts: %v, want 2", v)
	}
	if v := s.must(t, "loopwork_engine_task_duration_seconds", map[string]string{"type": "transform"}); v != 2 {
		t.Errorf("transform durations: %v, want 2", v)
	}

	// The export, its River job and the mail's.
	if v := s.must(t, "loopwork_mail_deliveries_total", map[string]string{"outcome": "logged"}); v != 1 {
		t.Errorf("deliveries logged: %v, want 1", v)
	}
	if v := s.must(t, "loopwork_exports_total", map[string]string{"event": "started"}); v != 1 {
		t.Errorf("exports started: %v", v)
	}
	if v := s.must(t, "loopwork_exports_total", map[string]string{"event": "succeeded"}); v != 1 {
		t.Errorf("exports succeeded: %v", v)
	}
	if _, ok := s.value("loopwork_exports_total", map[string]string{"event": "failed"}); ok {
		t.Error("an export counted as failed")
	}
	for _, kind := range []string{"export_file", "mail_send"} {
		if v := s.must(t, "loopwork_river_jobs_worked_total", map[string]string{"kind": kind, "queue": "default", "outcome": "completed"}); v != 1 {
			t.Errorf("%s jobs completed: %v, want 1", kind, v)
		}
		if v := s.must(t, "loopwork_river_job_wait_seconds", map[string]string{"kind": kind}); v != 1 {
			t.Errorf("%s waits observed: %v, want 1", kind, v)
		}
	}

	// Read from the database at the scrape: /v1 jobs by status, River's queue depth, the pool.
	for status, want := range map[string]float64{"SCHEDULED": 2, "COMPLETED": 1, "FAILED": 0} {
		if v := s.must(t, "loopwork_v1_jobs", map[string]string{"status": status}); v != want {
			t.Errorf("v1 jobs %s: %v, want %v", status, v, want)
		}
	}
	for _, state := range []string{"available", "running", "retryable", "scheduled"} {
		s.must(t, "loopwork_river_queue_jobs", map[string]string{"queue": "default", "state": state})
	}
	if v := s.must(t, "go_sql_max_open_connections", map[string]string{"db_name": "loopwork"}); v <= 0 {
		t.Errorf("pool size %v", v)
	}
	s.must(t, "go_goroutines", nil)
	s.must(t, "process_resident_memory_bytes", nil)
}

// TestQueueDepth: jobs waiting in a queue show in its depth by state; finished ones do not.
func TestQueueDepth(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	env.DB.MustExec(`INSERT INTO river_job (kind, args, queue, state, scheduled_at, finalized_at, max_attempts, priority)
		VALUES ('probe', '{}', 'other', 'scheduled', now() + interval '1 hour', NULL, 1, 1),
		       ('probe', '{}', 'other', 'scheduled', now() + interval '1 hour', NULL, 1, 1),
		       ('probe', '{}', 'other', 'discarded', now(), now(), 1, 1)`)
	s := get(t, env.URL+"/metrics", staff.Token)
	if v := s.must(t, "loopwork_river_queue_jobs", map[string]string{"queue": "other", "state": "scheduled"}); v != 2 {
		t.Errorf("scheduled: %v, want 2", v)
	}
	if v := s.must(t, "loopwork_river_queue_jobs", map[string]string{"queue": "other", "state": "available"}); v != 0 {
		t.Errorf("available: %v, want 0", v)
	}
	if _, ok := s.value("loopwork_river_queue_jobs", map[string]string{"state": "discarded"}); ok {
		t.Error("finished jobs are counted in the depth")
	}
}
