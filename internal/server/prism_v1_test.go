package server_test

import (
	"time"

	"github.com/google/uuid"
)

// apps runs the /v1 side as an organization uses it: an app of the scenario's flow whose jobs run to
// completion, and an app without a flow whose jobs people label, correct and give feedback on; tags,
// workers and worker groups, baseline data, the measurer, exports and bulk operations.
func (s *scenario) apps(me uuid.UUID) {
	flowID := s.ids["{api_id}"]
	app := s.v1("POST", "/v1/apps", map[string]any{"name": "doubler " + uuid.NewString()[:8], "api_id": flowID, "description": "doubles"}, 201)
	appID := app.str("id")
	job := s.v1("POST", "/v1/apps/"+appID+"/jobs", map[string]any{"input": map[string]any{"value": 4}, "tags": []string{"first"}}, 201)
	jobID := job.str("id")
	s.waitJob(appID, jobID, "COMPLETED")
	s.v1("GET", "/v1/apps/"+appID+"/jobs/"+jobID+"/history", nil, 200)
	s.v1("POST", "/v1/apis/"+flowID+"/baselineData/job/"+jobID, nil, 200)
	s.v1("GET", "/v1/apps/"+appID+"/jobs?size=10", nil, 200)
	s.v1("GET", "/v1/apps/"+appID+"/jobs/count", nil, 200)
	s.v1("GET", "/v1/apps/"+appID+"/jobs/count-by-processing-state", nil, 200)
	s.v1("GET", "/v1/apps/"+appID+"/jobs/ids", nil, 200)
	s.v1("PUT", "/v1/apps/"+appID+"/jobs/tags?idGreaterThan=0", map[string]any{"tags": []string{"checked"}}, 204)
	s.v1("DELETE", "/v1/apps/"+appID+"/jobs/tags?idGreaterThan=0", map[string]any{"tags": []string{"first"}}, 204)
	s.v1("GET", "/v1/apps/job-score-exists/"+appID, nil, 200)
	s.v1("PUT", "/v1/apps/owner-activity/"+appID, nil, 200)
	s.v1("GET", "/v1/apps/"+appID+"/all_metrics", nil, 200)
	s.v1("GET", "/v1/apis/"+flowID+"/metrics", nil, 200)

	// People label the jobs of an app bound to no flow.
	manual := s.v1("POST", "/v1/apps", map[string]any{"name": "manual " + uuid.NewString()[:8]}, 201)
	mID := manual.str("id")
	s.ids["{app_id}"], s.ids["{app_uuid}"] = mID, mID
	worker := ""
	for _, w := range s.v1("GET", "/v1/workers?size=100", nil, 200).list("items") {
		if w.str("user_id") == me.String() {
			worker = w.str("worker_id")
			s.ids["{username}"] = w.str("username")
		}
	}
	s.ids["{worker_id}"] = worker
	s.v1("POST", "/v1/app/"+mID+"/workers/"+worker, map[string]any{"role": "REVIEWER"}, 200)
	for i := 0; i < 3; i++ {
		j := s.v1("POST", "/v1/apps/"+mID+"/jobs", map[string]any{"input": map[string]any{"text": "item", "n": i}}, 201)
		s.ids["{job_id}"] = j.str("id")
	}
	s.v1("GET", "/v1/apps/"+mID+"/jobs/collaborator", nil, 200)
	label := s.v1("GET", "/v1/apps/"+mID+"/label", nil, 200)
	if job, ok := label["job"].(map[string]any); ok {
		id := jsonObj(job).str("id")
		s.v1("PUT", "/v1/apps/"+mID+"/jobs/"+id+"/response", map[string]any{"response": map[string]any{"label": "cat"}}, 200)
		s.v1("POST", "/v1/apps/"+mID+"/jobs/"+id+"/feedback", map[string]any{"correct": true, "message": "looks right", "feedback_tags": []string{"easy"}}, 201)
		s.v1("GET", "/v1/apps/"+mID+"/jobs/"+id, nil, 200)
		s.ids["{job_id}"] = id
	}
	s.v1("GET", "/v1/apps/"+mID+"/jobs/with-feedback-message", nil, 200)
	s.v1("GET", "/v1/apps/"+mID+"/job-feedback-stats", nil, 200)
	for _, p := range []string{"progress", "time_left", "jobs_cost_over_time", "jobs_metrics_over_time", "jobs_time_over_time"} {
		s.v1("GET", "/v1/apps/"+mID+"/labeling/"+p, nil, 200)
	}
	s.v1("GET", "/v1/app/"+mID+"/workers", nil, 200)
	s.v1("PATCH", "/v1/app/"+mID+"/workers/"+worker, map[string]any{"role": "MANAGER"}, 200)
	s.v1("GET", "/v1/workers/"+worker, nil, 200)

	tag := "urgent"
	s.ids["{tag}"] = tag
	s.v1("PUT", "/v1/app/apps/"+mID+"/tags/"+tag, map[string]any{"color": "#ff0000", "description": "do first"}, 200)
	s.v1("PATCH", "/v1/app/apps/"+mID+"/tags/"+tag, map[string]any{"description": "do it now"}, 200)
	s.v1("GET", "/v1/app/apps/"+mID+"/tags", nil, 200)

	group := s.v1("POST", "/v1/worker-groups", map[string]any{"name": "team " + uuid.NewString()[:8], "worker_ids": []jsonRaw{jsonRaw(worker)}}, 201)
	gID := group.str("worker_group_id")
	s.ids["{worker_group_id}"] = gID
	s.v1("PATCH", "/v1/worker-groups/"+gID, map[string]any{"name": "crew " + uuid.NewString()[:8]}, 200)
	s.v1("POST", "/v1/app/"+mID+"/worker-groups/"+gID, map[string]any{"role": "LABELER"}, 200)
	s.v1("PATCH", "/v1/app/"+mID+"/worker-groups/"+gID, map[string]any{"role": "REVIEWER"}, 200)
	s.v1("GET", "/v1/app/"+mID+"/worker-groups", nil, 200)
	s.v1("GET", "/v1/worker-groups", nil, 200)

	base := s.v1("POST", "/v1/apis/"+flowID+"/baselineData", map[string]any{"input": map[string]any{"value": 1},
		"response": map[string]any{"value": 2}, "type": "OWNER", "label": "one"}, 200)
	s.ids["{baseline_data_id}"] = base.str("id")
	s.v1("PATCH", "/v1/apis/"+flowID+"/baselineData/"+base.str("id"), map[string]any{"input": map[string]any{"value": 1},
		"response": map[string]any{"value": 2}, "label": "one, checked"}, 200)
	s.v1("GET", "/v1/apis/"+flowID+"/baselineData", nil, 200)
	s.v1("GET", "/v1/apps/"+mID+"/measurer/configuration", nil, 200)
	s.v1("PATCH", "/v1/apps/"+mID+"/measurer/configuration", map[string]any{"enabled": true}, 200, 204)

	export := s.v1("POST", "/v1/apps/"+mID+"/job_responses", map[string]any{}, 202)
	s.ids["{export_id}"], s.ids["{filename}"] = export.str("export_id"), export.str("filename")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if st := s.v1("GET", "/v1/apps/"+mID+"/exports/"+export.str("export_id"), nil, 200).str("status"); st != "QUEUED" && st != "RUNNING" {
			break
		}
	}
	s.v1("GET", "/v1/apps/"+mID+"/exports", nil, 200)
	s.v1("GET", "/v1/apps/job_responses_link/"+export.str("filename"), nil, 200)
	s.v1("POST", "/v1/apps/"+mID+"/clone", map[string]any{"name": "copy " + uuid.NewString()[:8], "include_tags": true, "include_members": true}, 200)
	cancel := s.v1("POST", "/v1/apps/"+mID+"/cancel?statusIn=SCHEDULED", nil, 200, 202)
	if op := cancel.str("operation_id"); op != "" {
		s.ids["{operation_id}"] = op
	}
	s.v1("PATCH", "/v1/apps/"+mID, map[string]any{"description": "labelled by people"}, 200, 202)
}

// waitJob polls a job until its status is want, for at most 20 s.
func (s *scenario) waitJob(app, job, want string) {
	s.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got := s.v1("GET", "/v1/apps/"+app+"/jobs/"+job, nil, 200).str("status"); got == want {
			return
		} else if time.Now().After(deadline) {
			s.t.Errorf("job %s of app %s is %s after 20 s, want %s", job, app, got, want)
			return
		}
	}
}
