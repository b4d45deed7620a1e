package testkit

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// Reply is any reply of the generated clients.
type Reply interface{ StatusCode() int }

// Expect fails the test unless the call succeeded at the HTTP level and answered the status.
func Expect(t testing.TB, res Reply, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != want {
		t.Fatalf("status %d, want %d: %s", res.StatusCode(), want, Body(res))
	}
}

// Body is the raw body of a reply.
func Body(res Reply) []byte {
	v := reflect.Indirect(reflect.ValueOf(res)).FieldByName("Body")
	if !v.IsValid() {
		return nil
	}
	return v.Bytes()
}

// ErrorOf reads the error of an ErrorResponse reply.
func ErrorOf(t testing.TB, res Reply) platformapi.ErrorDetail {
	t.Helper()
	var e platformapi.ErrorResponse
	if err := json.Unmarshal(Body(res), &e); err != nil {
		t.Fatalf("not an ErrorResponse: %s", Body(res))
	}
	return e.Error
}

// SameAsMissing fails unless got is exactly the 404 that missing (a random id) answered: what a caller
// may not see looks like what does not exist.
func SameAsMissing(t testing.TB, got, missing Reply) {
	t.Helper()
	if got.StatusCode() != http.StatusNotFound || missing.StatusCode() != http.StatusNotFound {
		t.Fatalf("statuses %d and %d, want 404 for both: %s / %s", got.StatusCode(), missing.StatusCode(), Body(got), Body(missing))
	}
	if a, b := ErrorOf(t, got), ErrorOf(t, missing); a.Message != b.Message || !reflect.DeepEqual(a.Code, b.Code) {
		t.Fatalf("a hidden resource answers %+v, a random id %+v", a, b)
	}
}

// NewFlow creates a flow of definition through the API as c, visible to c's organization (the default,
// stated so that a change of default cannot hide the flow from the other callers a test uses), and
// returns its id. A definition that saves with validation errors fails the test: a flow that cannot
// run would make a later failure look like the thing under test.
func NewFlow(t testing.TB, c *Caller, definition string) uuid.UUID {
	t.Helper()
	return NewFlowSeenBy(t, c, definition, platformapi.Organization)
}

// NewFlowSeenBy is NewFlow with the given visibility.
func NewFlowSeenBy(t testing.TB, c *Caller, definition string, vis platformapi.FlowVisibility) uuid.UUID {
	t.Helper()
	res, err := c.API.CreateFlowWithResponse(t.Context(), platformapi.FlowCreateRequest{DisplayName: "flow",
		Definition: json.RawMessage(definition), Visibility: &vis})
	Expect(t, res, err, http.StatusCreated)
	if len(*res.JSON201.ValidationErrors) != 0 {
		t.Fatalf("the test flow is not valid: %+v", *res.JSON201.ValidationErrors)
	}
	return res.JSON201.Id
}

// WaitForExecution polls an execution until its status is one of want, and fails the test after 20 s.
func WaitForExecution(t testing.TB, c *Caller, id uuid.UUID, want ...platformapi.ExecutionStatus) *platformapi.FlowExecutionResponseWithRunNumber {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := c.API.GetFlowExecutionWithResponse(t.Context(), id, nil)
		Expect(t, res, err, http.StatusOK)
		for _, w := range want {
			if res.JSON200.Status == w {
				return res.JSON200
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s is still %s after 20 s, want %v", id, res.JSON200.Status, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
