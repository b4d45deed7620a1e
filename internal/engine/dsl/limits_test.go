package dsl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func nested(depth int, leaf string) string {
	return strings.Repeat("[", depth) + leaf + strings.Repeat("]", depth)
}

func onlyError(t *testing.T, r Result, typ string, loc []any) Error {
	t.Helper()
	if len(r.Errors) != 1 || r.Errors[0].Type != typ || fmt.Sprint(r.Errors[0].Loc) != fmt.Sprint(loc) {
		t.Fatalf("errors = %+v, want one %s at %v", shortErrors(r.Errors), typ, loc)
	}
	return r.Errors[0]
}

func shortErrors(list []Error) []Error {
	return list[:min(len(list), 5)]
}

func TestDeepParameterValue(t *testing.T) {
	// Deep, but within what encoding/json decodes.
	body := def(`{"name": "a", "type": "external", "parameters": {"payload": `+nested(9990, "1")+`}}`, ``)
	r := ValidateJSON([]byte(body), reg)
	e := onlyError(t, r, KindTooDeep, r.Errors[0].Loc)
	if len(e.Loc) != 1+MaxDefinitionDepth || e.Loc[4] != "payload" {
		t.Fatalf("loc = %v", e.Loc)
	}
	// Deeper than encoding/json accepts: one json_invalid error, no panic.
	r = ValidateJSON([]byte(def(`{"name": "a", "type": "external", "parameters": {"payload": `+nested(10001, "1")+`}}`, ``)), reg)
	onlyError(t, r, KindJSONInvalid, l())
	// A value built in Go has no such limit, and is refused all the same.
	var v any = 1
	for range 100000 {
		v = map[string]any{"x": v}
	}
	r = Validate(map[string]any{"version": 1.0, "edges": []any{}, "tasks": []any{
		map[string]any{"name": "a", "type": "external", "parameters": map[string]any{"payload": v}}}}, reg)
	onlyError(t, r, KindTooDeep, r.Errors[0].Loc)
}

// TestDeepDefinitionStructure: nesting anywhere in a definition, not only in parameters, is bounded, so
// nothing stored is deeper than a reader's JSON decoder accepts; the input is never echoed whole.
func TestDeepDefinitionStructure(t *testing.T) {
	for _, body := range []string{
		`{"version": 1, "edges": [], "tasks": ` + nested(9000, "") + `}`,
		`{"version": 1, "tasks": [], "edges": [{"source": ` + nested(9000, "") + `}]}`,
		`{"version": 1, "tasks": [], "edges": [], "notes": ` + nested(MaxDefinitionDepth, "") + `}`,
	} {
		r := ValidateJSON([]byte(body), reg)
		e := onlyError(t, r, KindTooDeep, r.Errors[0].Loc)
		if b, _ := json.Marshal(e.Input); len(b) > 200 || r.Order != nil {
			t.Fatalf("input of %d bytes, order %v", len(b), r.Order)
		}
	}
	// Just within the bound, an unknown field is only an unknown field.
	r := ValidateJSON([]byte(`{"version": 1, "tasks": [], "edges": [], "notes": `+nested(MaxDefinitionDepth-1, "")+`}`), reg)
	onlyError(t, r, KindExtraForbidden, l("notes"))
}

func TestTooManyTasksAndEdges(t *testing.T) {
	d := bigDefinition(10000)
	if r := Validate(d, reg); len(r.Errors) != 0 || len(r.Order) != 10000 {
		t.Fatalf("10,000 tasks: %d errors", len(r.Errors))
	}
	d["tasks"] = append(d["tasks"].([]any), map[string]any{"name": "one_more", "type": "delay"})
	onlyError(t, Validate(d, reg), KindTooManyTasks, l("tasks"))

	edges := make([]string, 100000)
	for i := range edges {
		edges[i] = `{"source": "a", "target": "b"}`
	}
	r := ValidateJSON([]byte(def(ta+`,`+tb, strings.Join(edges, ","))), reg)
	onlyError(t, r, KindTooManyEdges, l("edges"))
}

// A definition full of garbage yields at most MaxErrors errors and one that counts the rest.
func TestErrorCap(t *testing.T) {
	edges := make([]string, MaxEdges)
	for i := range edges {
		edges[i] = fmt.Sprintf(`{"source": "x%d", "target": "y%d"}`, i, i)
	}
	r := ValidateJSON([]byte(def(ta, strings.Join(edges, ","))), reg)
	if len(r.Errors) != MaxErrors+1 {
		t.Fatalf("%d errors", len(r.Errors))
	}
	last := r.Errors[MaxErrors]
	if last.Type != KindTooManyErrors || last.Ctx["omitted"] != 2*MaxEdges-MaxErrors {
		t.Fatalf("last = %+v", last)
	}
}

func TestHugeStringsAreShortened(t *testing.T) {
	huge := strings.Repeat("x", 5<<20)
	r := ValidateJSON([]byte(def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "description": "`+huge+`"}`, ``)), reg)
	e := onlyError(t, r, KindStringTooLong, l("tasks", 0, "description"))
	if s, _ := e.Input.(string); len(s) > 300 {
		t.Fatalf("input of %d bytes", len(s))
	}
	r = ValidateJSON([]byte(def(`{"name": "`+huge+`", "type": "delay", "parameters": {"seconds": 1}}`, ``)), reg)
	onlyError(t, r, KindStringTooLong, l("tasks", 0, "name"))
}

func TestLongCycle(t *testing.T) {
	const n = 10000
	taskList, edgeList := make([]any, n), make([]any, n)
	for i := range n {
		taskList[i] = map[string]any{"name": fmt.Sprint("t", i), "type": "delay", "parameters": map[string]any{"seconds": 1.0}}
		edgeList[i] = map[string]any{"source": fmt.Sprint("t", i), "target": fmt.Sprint("t", (i+1)%n)}
	}
	r := Validate(map[string]any{"version": 1.0, "tasks": taskList, "edges": edgeList}, reg)
	e := onlyError(t, r, KindCycle, l("edges", 0))
	names := e.Ctx["tasks"].([]string)
	if names[0] != "t0" || names[1] != "t1" || len(names) != maxCycleNames || e.Ctx["length"] != n {
		t.Fatalf("ctx = %v… (%d names), length %v", names[:3], len(names), e.Ctx["length"])
	}
	if r.Order != nil {
		t.Fatal("a cyclic graph has an order")
	}
}
