package flows_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

// response is any reply of the generated client.
type response interface{ StatusCode() int }

// expect fails the test unless the call answered the status.
func expect(t testing.TB, res response, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != want {
		t.Fatalf("status %d, want %d: %s", res.StatusCode(), want, bodyOf(res))
	}
}

func bodyOf(res response) []byte {
	v := reflect.Indirect(reflect.ValueOf(res)).FieldByName("Body")
	if !v.IsValid() {
		return nil
	}
	return v.Bytes()
}

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
		{"source": "check", "target": "review", "condition": ".result"}
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
	expect(t, res, err, http.StatusCreated)
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

// errorOf reads the error of an ErrorResponse reply.
func errorOf(t testing.TB, res response) platformapi.ErrorDetail {
	t.Helper()
	var e platformapi.ErrorResponse
	if err := json.Unmarshal(bodyOf(res), &e); err != nil {
		t.Fatalf("not an ErrorResponse: %s", bodyOf(res))
	}
	return e.Error
}

// sameAsMissing fails unless got is exactly the 404 that a random id answers.
func sameAsMissing(t testing.TB, got, missing response) {
	t.Helper()
	if got.StatusCode() != http.StatusNotFound || missing.StatusCode() != http.StatusNotFound {
		t.Fatalf("statuses %d and %d, want 404 for both: %s / %s", got.StatusCode(), missing.StatusCode(), bodyOf(got), bodyOf(missing))
	}
	if a, b := errorOf(t, got), errorOf(t, missing); a.Message != b.Message || !reflect.DeepEqual(a.Code, b.Code) {
		t.Fatalf("a hidden flow answers %+v, a random id %+v", a, b)
	}
}

// validation reads the items of a 422 HTTPValidationError.
func validation(t testing.TB, res response) []platformapi.ValidationError {
	t.Helper()
	if res.StatusCode() != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", res.StatusCode(), bodyOf(res))
	}
	var v platformapi.HTTPValidationError
	if err := json.Unmarshal(bodyOf(res), &v); err != nil || len(v.Detail) == 0 {
		t.Fatalf("not an HTTPValidationError: %s", bodyOf(res))
	}
	return v.Detail
}

// locs are the locations of problems, as comparable strings.
func locString(loc []any) string {
	b, _ := json.Marshal(loc)
	return string(b)
}
