package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// pendingSummary is how the served documents say that an operation answers 501 for now (specbundle
// appends it to the summary of every operation marked x-pending in the contract).
const pendingSummary = " (not available yet)"

// implemented lists the operations that the services embedded in impl provide: an operation is
// implemented when the type of one embedded field other than the generated fallback has a method of
// the operation's name.
func implemented(impl any, fallback reflect.Type) map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(impl)
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.Anonymous || f.Type == fallback {
			continue
		}
		for j := range f.Type.NumMethod() {
			out[f.Type.Method(j).Name] = true
		}
	}
	return out
}

// TestPendingMarksAreTrue keeps the served documents honest about what this server does: an operation
// is marked "not available yet", with 501 among its responses, if and only if no service implements it.
// A failure means the x-pending mark in openapi/ must be added or removed (then make generate).
func TestPendingMarksAreTrue(t *testing.T) {
	t.Parallel()
	api := implemented(platform{}, reflect.TypeOf(platformPending{}))
	v1 := implemented(v1{}, reflect.TypeOf(v1Pending{}))
	for _, d := range []struct {
		name       string
		raw        []byte
		done       map[string]bool
		operations []string
	}{
		{"/api openapi.json", platformapi.OpenAPIJSON, api, platformapi.Operations},
		{"/v1 openapi.json", v1api.OpenAPIJSON, v1, v1api.Operations},
		{"/v1 swagger.json", v1api.SwaggerJSON, v1, v1api.Operations},
	} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			var doc struct {
				Paths map[string]map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(d.raw, &doc); err != nil {
				t.Fatal(err)
			}
			var count, marked int
			for path, item := range doc.Paths {
				for method, raw := range item {
					var op struct {
						OperationID string                     `json:"operationId"`
						Summary     string                     `json:"summary"`
						Responses   map[string]json.RawMessage `json:"responses"`
					}
					if method == "parameters" || json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
						continue
					}
					count++
					// oapi-codegen names the method after the operationId with its first letter upper-cased.
					name := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:]
					if !slices.Contains(d.operations, name) {
						t.Errorf("%s: no method %s in the strict server interface", op.OperationID, name)
						continue
					}
					pending := strings.HasSuffix(op.Summary, pendingSummary)
					_, has501 := op.Responses["501"]
					if pending {
						marked++
					}
					switch {
					case d.done[name] && pending:
						t.Errorf("%s (%s %s) is implemented: remove its x-pending mark", op.OperationID, strings.ToUpper(method), path)
					case !d.done[name] && !pending:
						t.Errorf("%s (%s %s) answers 501: mark it x-pending", op.OperationID, strings.ToUpper(method), path)
					case pending != has501:
						t.Errorf("%s (%s %s): 501 is among its responses only if it is marked pending", op.OperationID, strings.ToUpper(method), path)
					}
				}
			}
			if count != len(d.operations) {
				t.Errorf("%d operations in the document, %d in the strict server interface", count, len(d.operations))
			}
			t.Logf("%d of %d operations not available yet", marked, count)
		})
	}
}
