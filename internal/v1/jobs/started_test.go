package jobs_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestJobWrittenAfterItsStart: a job is written after the start of its execution, where the execution
// stands then, with the history it would have had following each move. A flow whose one task reshapes
// the input ends within the submission: its job is COMPLETED by the time the submission answers, with
// the output as its response, and its history goes through IN_PROGRESS; its execution names it.
func TestJobWrittenAfterItsStart(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{def: `{"version": 1, "tasks": [
		{"name": "shape", "type": "transform", "parameters": {"expression": "{label: .text, confidence: 0.5}"}}], "edges": []}`})
	id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hi"})})
	res, err := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
	testkit.Expect(t, res, err, http.StatusOK)
	j := res.JSON200
	b, _ := json.Marshal(j.Response)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if j.Status != "COMPLETED" || j.ProcessingState != "DONE" || out["label"] != "hi" || out["confidence"] != 0.5 ||
		j.Score == nil || *j.Score != 0.5 || j.CompletedAt == nil {
		t.Fatalf("job %s %s, response %s, score %v, right after its submission; want it COMPLETED with the output", j.Status, j.ProcessingState, b, j.Score)
	}
	want := "STATUS_CHANGED SCHEDULED>IN_PROGRESS; PROCESSING_STATE_CHANGED QUEUED>PROCESSING; " +
		"STATUS_CHANGED IN_PROGRESS>COMPLETED; PROCESSING_STATE_CHANGED PROCESSING>DONE"
	if got := f.events(t, id); got != want {
		t.Fatalf("history %s, want %s", got, want)
	}
	var named int64
	if err := f.env.DB.Get(&named, `SELECT job_id FROM flow_executions WHERE id = $1`, *j.FlowExecutionId); err != nil || named != id {
		t.Fatalf("the execution names job %d (%v), want %d", named, err, id)
	}
}
