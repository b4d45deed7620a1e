package flows_test

import (
	"context"
	"encoding/json"
	"github.com/loopwork/loopwork/internal/testkit"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

var ctx = context.Background()

// def decodes a definition written as JSON.
func def(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// validDef is a small valid definition: extract, then check, then review when the check holds.
const validDef = `{"version": 1,
	"tasks": [
		{"name": "extract", "type": "transform", "parameters": {"expression": "{total: .invoice.total}"}},
		{"name": "check", "type": "condition", "parameters": {"expression": ".total > 100"}},
		{"name": "review", "type": "human_review", "parameters": {"instructions": "Check the total."}}
	],
	"edges": [
		{"source": "extract", "target": "check"},
		{"source": "check", "target": "review", "branch": true}
	]}`

// brokenDef names an unknown task type and an edge to a missing task.
const brokenDef = `{"version": 1,
	"tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "b", "type": "teleport"}
	],
	"edges": [{"source": "a", "target": "nowhere"}]}`

// createFlow creates a flow and fails the test unless it answers 201.
func createFlow(t testing.TB, api *platformapi.ClientWithResponses, name, definition string, vis *platformapi.FlowVisibility) *platformapi.FlowResponse {
	t.Helper()
	res, err := api.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: name, Definition: json.RawMessage(definition), Visibility: vis})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201
}

// getStatus reads the latest version of a flow and returns the status and the flow.
func getStatus(t testing.TB, api *platformapi.ClientWithResponses, id uuid.UUID) (int, *platformapi.FlowResponse) {
	t.Helper()
	res, err := api.GetFlowWithResponse(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode(), res.JSON200
}

// validation reads the items of a 422 HTTPValidationError.
func validation(t testing.TB, res testkit.Reply) []platformapi.ValidationError {
	t.Helper()
	if res.StatusCode() != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", res.StatusCode(), testkit.Body(res))
	}
	var v platformapi.HTTPValidationError
	if err := json.Unmarshal(testkit.Body(res), &v); err != nil || len(v.Detail) == 0 {
		t.Fatalf("not an HTTPValidationError: %s", testkit.Body(res))
	}
	return v.Detail
}

// locs are the locations of problems, as comparable strings.
func locString(loc []any) string {
	b, _ := json.Marshal(loc)
	return string(b)
}
