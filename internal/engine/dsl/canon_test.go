package dsl

import (
	"encoding/json"
	"reflect"
	"testing"
)

// canonical writes a parsed definition back as the JSON a client would send: every field it holds and
// nothing it ignored, defaults spelled out.
func canonical(d *Definition) []byte {
	taskList := make([]any, len(d.Tasks))
	for i, t := range d.Tasks {
		m := map[string]any{"name": t.Name, "type": t.Type, "parameters": t.Parameters,
			"retry": map[string]any{"max_attempts": t.Retry.MaxAttempts, "backoff_seconds": t.Retry.BackoffSeconds}}
		if t.TimeoutSeconds != nil {
			m["timeout_seconds"] = *t.TimeoutSeconds
		}
		if t.Description != nil {
			m["description"] = *t.Description
		}
		taskList[i] = m
	}
	edgeList := make([]any, len(d.Edges))
	for i, e := range d.Edges {
		m := map[string]any{"source": e.Source, "target": e.Target}
		if e.Condition != nil {
			m["condition"] = *e.Condition
		}
		if e.Branch != nil {
			m["branch"] = *e.Branch
		}
		edgeList[i] = m
	}
	b, err := json.Marshal(map[string]any{"version": d.Version, "tasks": taskList, "edges": edgeList})
	if err != nil {
		panic(err)
	}
	return b
}

// checkLocs asserts that every problem says what and where: a kind, a sentence, and a loc that starts at
// "definition" and leads through the submitted document to the place of the problem (the last step may
// name a field that is missing; inside a task's parameters, which default to {}, a missing one may be
// named below an absent or null value).
func checkLocs(t *testing.T, raw []byte, r Result) {
	t.Helper()
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return
	}
	for _, e := range r.Errors {
		if e.Type == "" || e.Msg == "" || len(e.Loc) == 0 || e.Loc[0] != "definition" {
			t.Fatalf("a problem without its kind, message or place: %+v", e)
		}
		v := doc
		for i, step := range e.Loc[1:] {
			if v == nil && i >= 3 && inParameters(e.Loc) {
				break // parameters left out are {}: a required one is reported where it would go
			}
			switch s := step.(type) {
			case string:
				obj, ok := v.(map[string]any)
				if !ok {
					t.Fatalf("%s at %v: step %d, %q, is not a field of %T", e.Type, e.Loc, i+1, s, v)
				}
				v = obj[s]
			case int:
				list, ok := v.([]any)
				if !ok || s < 0 || s >= len(list) {
					t.Fatalf("%s at %v: step %d, %d, is not an index of %T", e.Type, e.Loc, i+1, s, v)
				}
				v = list[s]
			default:
				t.Fatalf("%s at %v: step %d is a %T", e.Type, e.Loc, i+1, step)
			}
			if v == nil && i < len(e.Loc)-2 && !inParameters(e.Loc) {
				t.Fatalf("%s at %v: nothing at step %d", e.Type, e.Loc, i+1)
			}
		}
	}
}

// inParameters: the registry's schema problems point into a parameter's value, where a null may sit.
func inParameters(loc []any) bool {
	return len(loc) > 3 && loc[1] == "tasks" && loc[3] == "parameters"
}

// checkCanonical asserts that a valid definition, written back canonically, validates to the same
// definition and order, so that what a client reads it can save again unchanged.
func checkCanonical(t *testing.T, r Result) {
	t.Helper()
	if len(r.Errors) != 0 {
		return
	}
	raw := canonical(r.Definition)
	again := ValidateJSON(raw, reg)
	if len(again.Errors) != 0 || !reflect.DeepEqual(again.Order, r.Order) || !reflect.DeepEqual(again.Definition, r.Definition) {
		t.Fatalf("the canonical form %s does not validate to the same definition: %+v\n%+v\n%+v", raw, again.Errors, r.Definition, again.Definition)
	}
}
