package exports_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
)

// TestExportCellsAndFilterArguments: every kind of cell is written as the job routes show it (times in
// RFC 3339 UTC with their fraction trimmed, floats as JSON numbers, nulls), and every kind of filter
// argument (an instant, a list, a number, a boolean, text with quotes, a JSON value) selects through the
// query the export runs.
func TestExportCellsAndFilterArguments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ids []int64
	if err := f.env.DB.Select(&ids, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response,
			tags, batch_id, score, trust_score, correct, reviewed, error, created_at, completed_at)
		VALUES ($1, $2, 'COMPLETED', 'DONE', '{"n": 1, "s": "x"}', '{"total": 0.00001}', '{a,b}', 'it''s, "quoted"',
			0.00001, 1e21, true, 'CORRECT', E'bad\nthing', '2026-01-02 03:04:05.1+00', NULL),
		       ($1, $2, 'COMPLETED', 'DONE', '{"n": 2}', NULL, '{b}', 'it''s, "quoted"', 0.5, NULL, false, NULL, NULL,
			'2026-01-02 03:04:06+00', '2026-01-03 00:00:00.123456+00'),
		       ($1, $2, 'FAILED', 'ERROR', '{"n": 3}', NULL, '{b}', 'other', NULL, NULL, NULL, NULL, NULL,
			'2025-01-01 00:00:00+00', NULL)
		RETURNING id`, f.org, f.app); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{FlattenedOutput: new(false),
		CreatedStartDate: &since, Tags: &[]string{"b"}, IdGreaterThan: new(ids[0] - 1), BatchId: new(`it's, "quoted"`)})
	lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the two jobs since 2026 tagged b of the batch, got\n%s", file)
	}
	var first, second map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"status": `"COMPLETED"`, "batch_id": `"it's, \"quoted\""`, "tags": `["a","b"]`,
		"created_at": `"2026-01-02T03:04:05.1Z"`, "completed_at": `null`, "score": `0.00001`, "trust_score": `1e+21`,
		"correct": `true`, "reviewed": `"CORRECT"`, "error": `"bad\u000athing"`, "edited": `false`, "input": `{"n":1,"s":"x"}`,
		"response": `{"total":0.00001}`}
	for k, v := range want {
		if string(first[k]) != v {
			t.Errorf("first job's %s: %s, want %s", k, first[k], v)
		}
	}
	want = map[string]string{"created_at": `"2026-01-02T03:04:06Z"`, "completed_at": `"2026-01-03T00:00:00.123456Z"`,
		"score": `0.5`, "trust_score": `null`, "correct": `false`, "reviewed": `"NOT_REVIEWED"`, "error": `null`, "response": `null`}
	for k, v := range want {
		if string(second[k]) != v {
			t.Errorf("second job's %s: %s, want %s", k, second[k], v)
		}
	}
	// A boolean, a JSON value at a path, and a list of statuses.
	_, file = f.export(t, f.admin, v1api.ExportJobResponsesParams{Correct: new(v1api.ExportJobResponsesParamsCorrectFalse),
		InputPath: new("{n}"), InputValue: new("2"), StatusIn: &[]string{"COMPLETED"}})
	if strings.Count(file, "\n") != 1 || !strings.Contains(file, `"completed_at":"2026-01-03T00:00:00.123456Z"`) {
		t.Fatalf("correct=false, input n = 2: %s", file)
	}
}
