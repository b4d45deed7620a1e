package conversations_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
)

var (
	servedOnce sync.Once
	servedDoc  *openapi3.T
	servedErr  error
)

// served is the /api contract as the server serves it, loaded once.
func served(t testing.TB) *openapi3.T {
	t.Helper()
	servedOnce.Do(func() { servedDoc, servedErr = openapi3.NewLoader().LoadFromData(platformapi.OpenAPIJSON) })
	if servedErr != nil {
		t.Fatal(servedErr)
	}
	return servedDoc
}

// conforms checks a JSON value against a schema of the served contract. The contract transport of the
// test clients checks JSON replies, but not what a server-sent event carries, so the stream reader
// checks each event with it.
func conforms(t testing.TB, schema string, v any) error {
	t.Helper()
	ref := served(t).Components.Schemas[schema]
	if ref == nil || ref.Value == nil {
		t.Fatalf("the served contract has no schema %s", schema)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return ref.Value.VisitJSON(doc)
}

// TestChangesMatchTheContract: the changes the built-in agent reports, as propose sends them, are
// WorkflowChange items of a WorkflowUpdateBody, whichever op they carry; an op the contract does not
// list is refused, so the two cannot drift apart unnoticed.
func TestChangesMatchTheContract(t *testing.T) {
	t.Parallel()
	body := func(changes any) map[string]any {
		return map[string]any{"type": "workflow_update", "flow_id": "00000000-0000-0000-0000-000000000001", "flow_version": 1,
			"definition": map[string]any{"version": 1, "tasks": []any{}, "edges": []any{}}, "summary": "s",
			"validation_errors": []any{}, "changes": changes}
	}
	var all []builtin.Change
	for _, op := range []string{"added", "removed", "renamed", "changed", "moved"} {
		all = append(all, builtin.Change{Op: op, Task: "post", Detail: "posts to https://example.com/b instead"})
	}
	if err := conforms(t, "WorkflowUpdateBody", body(all)); err != nil {
		t.Fatalf("the changes do not conform: %v", err)
	}
	if err := conforms(t, "WorkflowUpdateBody", body(nil)); err != nil {
		t.Fatalf("null changes (a new flow) do not conform: %v", err)
	}
	if err := conforms(t, "WorkflowUpdateBody", body([]builtin.Change{{Op: "swapped", Task: "x", Detail: "y"}})); err == nil {
		t.Fatal("an op outside the contract's list conforms")
	}
}
