package dsl

import (
	"reflect"
	"slices"
	"testing"
)

// TestVariablesNameTasksUpstream: expressions may read $input and $tasks.<name> of a task upstream; a name
// that is no task, or a task that does not run before, is reported at the expression.
func TestVariablesNameTasksUpstream(t *testing.T) {
	tr := func(name, expr string) string {
		return `{"name": "` + name + `", "type": "transform", "parameters": {"expression": ` + quote(expr) + `}}`
	}
	mail := `{"name": "m", "type": "email", "parameters": {"to": ["a@example.test"], "subject": "{{ $tasks.a.x }}",
		"body": "{{ $input.who }} {{ $tasks.nope }}"}}`
	d := def(tr("a", "$input")+","+tr("b", `$tasks.a + $tasks["c"]`)+","+tr("c", ".")+","+mail,
		`{"source": "a", "target": "b"}, {"source": "b", "target": "m"},
		 {"source": "a", "target": "c", "condition": "$tasks.a.ok and $tasks.b.ok"}`)
	r := ValidateJSON([]byte(d), reg)
	got := map[string][]any{}
	for _, e := range r.Errors {
		got[e.Type+" "+e.Input.(string)] = e.Loc
	}
	wantErrs := map[string][]any{
		"task_not_upstream $tasks.c": l("tasks", 1, "parameters", "expression"),
		"unknown_task $tasks.nope":   l("tasks", 3, "parameters", "body"),
		"task_not_upstream $tasks.b": l("edges", 2, "condition"),
	}
	if !reflect.DeepEqual(got, wantErrs) {
		t.Fatalf("errors = %v\nwant %v", got, wantErrs)
	}
	ts := r.Definition.Tasks
	if !ts[0].Vars.Input || len(ts[0].Vars.Tasks) != 0 {
		t.Errorf("a reads %+v", ts[0].Vars)
	}
	if !slices.Equal(ts[1].Vars.Tasks, []string{"a", "c"}) || ts[1].Vars.Input {
		t.Errorf("b reads %+v", ts[1].Vars)
	}
	if !ts[3].Vars.Input || !slices.Equal(ts[3].Vars.Tasks, []string{"a", "nope"}) {
		t.Errorf("m reads %+v", ts[3].Vars)
	}
	if !slices.Equal(r.Definition.Edges[2].Vars.Tasks, []string{"a", "b"}) {
		t.Errorf("edge reads %+v", r.Definition.Edges[2].Vars)
	}

	// $tasks read whole, or an undeclared variable.
	r = ValidateJSON([]byte(def(tr("a", "$tasks | keys"), "")), reg)
	if len(r.Errors) != 0 || !r.Definition.Tasks[0].Vars.AllTasks {
		t.Fatalf("whole $tasks: %+v %+v", r.Errors, r.Definition.Tasks[0].Vars)
	}
	r = ValidateJSON([]byte(def(tr("a", "$nope"), "")), reg)
	if len(r.Errors) != 1 || r.Errors[0].Type != KindJQSyntax {
		t.Fatalf("undeclared variable: %+v", r.Errors)
	}
}

// TestBranchesAndUnguardedEdges: branch belongs to edges out of a condition; an unguarded edge beside a
// guarded one into the same task is a warning, not an error.
func TestBranchesAndUnguardedEdges(t *testing.T) {
	r := ValidateJSON([]byte(def(ta+","+tb+","+tc,
		`{"source": "a", "target": "c"}, {"source": "c", "target": "b", "branch": false},
		 {"source": "a", "target": "b"}`)), reg)
	if len(r.Errors) != 0 {
		t.Fatalf("errors: %+v", r.Errors)
	}
	if e := r.Definition.Edges[1]; e.Follows() || e.Branch == nil {
		t.Errorf("branch false read as %+v", e)
	}
	if r.Definition.Edges[0].Follows() != true {
		t.Error("an edge without branch follows true")
	}
	if len(r.Warnings) != 1 || r.Warnings[0].Type != KindUnguardedEdge || !reflect.DeepEqual(r.Warnings[0].Loc, l("edges", 2)) {
		t.Fatalf("warnings: %+v", r.Warnings)
	}

	r = ValidateJSON([]byte(def(ta+","+tb, `{"source": "a", "target": "b", "branch": true}`)), reg)
	if len(r.Errors) != 1 || r.Errors[0].Type != KindBranchWithoutCondition || !reflect.DeepEqual(r.Errors[0].Loc, l("edges", 0, "branch")) {
		t.Fatalf("branch out of a transform: %+v", r.Errors)
	}
	r = ValidateJSON([]byte(def(tc+","+tb, `{"source": "c", "target": "b", "branch": "no"}`)), reg)
	if len(r.Errors) != 1 || r.Errors[0].Type != KindType {
		t.Fatalf("branch of another type: %+v", r.Errors)
	}
}

func quote(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}

// TestResultConditionWarns: an edge condition out of a condition task that still reads .result (the
// output such a task had before it passed its input on) is a warning that names branch.
func TestResultConditionWarns(t *testing.T) {
	r := ValidateJSON([]byte(def(tc+","+tb, `{"source": "c", "target": "b", "condition": ".result == false"}`)), reg)
	if len(r.Errors) != 0 || len(r.Warnings) != 1 || r.Warnings[0].Type != KindResultCondition ||
		!reflect.DeepEqual(r.Warnings[0].Loc, l("edges", 0, "condition")) {
		t.Fatalf("errors %+v, warnings %+v", r.Errors, r.Warnings)
	}
}
