package dsl

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

var reg = tasks.Builtin()

// The FlowDefinition example of the /api contract.
const example = `{"version": 1,
 "tasks": [
  {"name": "extract", "type": "llm", "parameters": {"prompt": "Extract the invoice number and total, with your confidence, from: {{ .text }}",
    "output_schema": {"type": "object", "properties": {"number": {"type": "string"}, "total": {"type": "number"},
      "confidence": {"type": "number"}}, "required": ["number", "total", "confidence"]}},
   "retry": {"max_attempts": 3, "backoff_seconds": 2}, "timeout_seconds": 60, "description": "Reads the invoice number and total."},
  {"name": "unsure", "type": "condition", "parameters": {"expression": ".json.confidence < 0.9"}},
  {"name": "review", "type": "human_review", "parameters": {"review_of": "extract"}},
  {"name": "post", "type": "http_request", "parameters": {"url": "https://erp.example.com/invoices", "method": "POST",
    "body": {"number": "{{ $tasks.extract.json.number }}", "total": "{{ $tasks.extract.json.total }}", "source": "{{ $input.from }}"}}}],
 "edges": [{"source": "extract", "target": "unsure"}, {"source": "unsure", "target": "review", "branch": true},
  {"source": "unsure", "target": "post", "branch": false}, {"source": "review", "target": "post"}]}`

func TestExampleIsValid(t *testing.T) {
	r := ValidateJSON([]byte(example), reg)
	if len(r.Errors) != 0 || len(r.Warnings) != 0 {
		t.Fatalf("errors: %+v, warnings: %+v", r.Errors, r.Warnings)
	}
	if !reflect.DeepEqual(r.Order, []string{"extract", "unsure", "review", "post"}) {
		t.Fatalf("order = %v", r.Order)
	}
	d := r.Definition
	if d.Version != 1 || len(d.Tasks) != 4 || len(d.Edges) != 4 {
		t.Fatalf("definition = %+v", d)
	}
	x := d.Tasks[0]
	if x.Retry != (Retry{MaxAttempts: 3, BackoffSeconds: 2}) || *x.TimeoutSeconds != 60 || *x.Description == "" {
		t.Fatalf("task = %+v", x)
	}
	if d.Tasks[1].Retry != (Retry{MaxAttempts: 1}) || d.Tasks[1].Index != 1 || d.Edges[2].Follows() || !d.Edges[1].Follows() {
		t.Fatalf("defaults = %+v, %+v", d.Tasks[1], d.Edges)
	}
	if post := d.Tasks[3].Vars; !post.Input || !reflect.DeepEqual(post.Tasks, []string{"extract"}) {
		t.Fatalf("post reads %+v", post)
	}
}

// def builds a definition from task and edge JSON fragments.
func def(taskList, edgeList string) string {
	return `{"version": 1, "tasks": [` + taskList + `], "edges": [` + edgeList + `]}`
}

const (
	ta = `{"name": "a", "type": "transform", "parameters": {"expression": "."}}`
	tb = `{"name": "b", "type": "delay", "parameters": {"seconds": 1}}`
	tc = `{"name": "c", "type": "condition", "parameters": {"expression": ".x"}}`
)

type want struct {
	typ string
	loc []any
}

func l(parts ...any) []any { return append([]any{"definition"}, parts...) }

// TestErrorKinds checks, for each kind of problem, the exact list of errors and whether an order is given.
func TestErrorKinds(t *testing.T) {
	long := strings.Repeat("n", 201)
	cases := []struct {
		name  string
		body  string
		want  []want
		order bool
	}{
		{"not JSON", `{"version": `, []want{{KindJSONInvalid, l()}}, false},
		{"trailing data", `{} {}`, []want{{KindJSONInvalid, l()}}, false},
		{"not an object", `[1]`, []want{{KindType, l()}}, false},
		{"version missing", `{"tasks": [], "edges": []}`, []want{{KindMissing, l("version")}}, true},
		{"version 2", `{"version": 2, "tasks": [], "edges": []}`, []want{{KindVersion, l("version")}}, true},
		{"version string", `{"version": "1", "tasks": [], "edges": []}`, []want{{KindType, l("version")}}, true},
		{"tasks missing", `{"version": 1, "edges": []}`, []want{{KindMissing, l("tasks")}}, false},
		{"edges not an array", `{"version": 1, "tasks": [], "edges": {}}`, []want{{KindType, l("edges")}}, false},
		{"unknown top field", `{"version": 1, "tasks": [], "edges": [], "edge": []}`, []want{{KindExtraForbidden, l("edge")}}, true},
		{"task not an object", def(`5`, ``), []want{{KindType, l("tasks", 0)}}, false},
		{"task field unknown", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "paramters": {}}`, ``),
			[]want{{KindExtraForbidden, l("tasks", 0, "paramters")}}, true},
		{"reply fields accepted", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "dynamic_data": {}, "output_schema": {}}`, ``), nil, true},
		{"name missing", def(`{"type": "delay", "parameters": {"seconds": 1}}`, ``), []want{{KindMissing, l("tasks", 0, "name")}}, false},
		{"name empty", def(`{"name": "", "type": "delay", "parameters": {"seconds": 1}}`, ``), []want{{KindStringTooShort, l("tasks", 0, "name")}}, false},
		{"name too long", def(`{"name": "`+long+`", "type": "delay", "parameters": {"seconds": 1}}`, ``), []want{{KindStringTooLong, l("tasks", 0, "name")}}, false},
		{"name of 200 characters", def(`{"name": "`+strings.Repeat("é", 200)+`", "type": "delay", "parameters": {"seconds": 1}}`, ``), nil, true},
		{"name not a string", def(`{"name": 7, "type": "delay", "parameters": {"seconds": 1}}`, ``), []want{{KindType, l("tasks", 0, "name")}}, false},
		{"type missing", def(`{"name": "a"}`, ``), []want{{KindMissing, l("tasks", 0, "type")}}, true},
		{"unknown task type", def(`{"name": "a", "type": "sleep"}`, ``), []want{{KindUnknownTaskType, l("tasks", 0, "type")}}, true},
		{"duplicate task name", def(ta+`,`+tb+`,`+ta, ``), []want{{KindDuplicateTaskName, l("tasks", 2, "name")}}, false},
		{"unknown source", def(ta, `{"source": "x", "target": "a"}`), []want{{KindUnknownTask, l("edges", 0, "source")}}, false},
		{"unknown target", def(ta, `{"source": "a", "target": "x"}`), []want{{KindUnknownTask, l("edges", 0, "target")}}, false},
		{"edge end missing", def(ta, `{"source": "a"}`), []want{{KindMissing, l("edges", 0, "target")}}, false},
		{"edge not an object", def(ta, `"a->b"`), []want{{KindType, l("edges", 0)}}, false},
		{"edge field unknown", def(ta+`,`+tb, `{"source": "a", "target": "b", "when": ".x"}`), []want{{KindExtraForbidden, l("edges", 0, "when")}}, true},
		{"self loop", def(ta+`,`+tb, `{"source": "a", "target": "b"}, {"source": "b", "target": "b"}`), []want{{KindSelfLoop, l("edges", 1)}}, false},
		{"cycle", def(ta+`,`+tb+`,`+tc, `{"source": "a", "target": "b"}, {"source": "b", "target": "c"}, {"source": "c", "target": "b"}`),
			[]want{{KindCycle, l("edges", 1)}}, false},
		{"parameters not an object", def(`{"name": "a", "type": "delay", "parameters": [1]}`, ``), []want{{KindType, l("tasks", 0, "parameters")}}, true},
		{"parameter problems", def(`{"name": "a", "type": "http_request", "parameters": {"url": "https://x.org", "headers": {"X-A": 1}}}`, ``),
			[]want{{"type", l("tasks", 0, "parameters", "headers", "X-A")}}, true},
		{"parameter missing", def(`{"name": "a", "type": "delay"}`, ``), []want{{"missing", l("tasks", 0, "parameters", "seconds")}}, true},
		{"jq syntax in parameters", def(`{"name": "a", "type": "transform", "parameters": {"expression": ".a | "}}`, ``),
			[]want{{KindJQSyntax, l("tasks", 0, "parameters", "expression")}}, true},
		{"jq undefined function", def(`{"name": "a", "type": "condition", "parameters": {"expression": "nosuch(1)"}}`, ``),
			[]want{{KindJQSyntax, l("tasks", 0, "parameters", "expression")}}, true},
		{"jq not a string", def(`{"name": "a", "type": "transform", "parameters": {"expression": 42}}`, ``),
			[]want{{"type", l("tasks", 0, "parameters", "expression")}}, true},
		{"jq syntax in condition", def(ta+`,`+tb, `{"source": "a", "target": "b", "condition": ".x =="}`),
			[]want{{KindJQSyntax, l("edges", 0, "condition")}}, true},
		{"condition not a string", def(ta+`,`+tb, `{"source": "a", "target": "b", "condition": true}`),
			[]want{{KindType, l("edges", 0, "condition")}}, true},
		{"condition empty", def(ta+`,`+tb, `{"source": "a", "target": "b", "condition": ""}`),
			[]want{{KindStringTooShort, l("edges", 0, "condition")}}, true},
		{"condition null", def(ta+`,`+tb, `{"source": "a", "target": "b", "condition": null}`), nil, true},
		{"expression too long", def(ta+`,`+tb, `{"source": "a", "target": "b", "condition": "`+strings.Repeat(".", MaxExpressionLength+1)+`"}`),
			[]want{{KindStringTooLong, l("edges", 0, "condition")}}, true},
		{"template syntax", def(`{"name": "a", "type": "llm", "parameters": {"prompt": "Hi {{ .name"}}`, ``),
			[]want{{KindTemplateSyntax, l("tasks", 0, "parameters", "prompt")}}, true},
		{"jq in template", def(`{"name": "a", "type": "llm", "parameters": {"prompt": "Hi {{ .name | }}"}}`, ``),
			[]want{{KindJQSyntax, l("tasks", 0, "parameters", "prompt")}}, true},
		{"review of unknown task", def(`{"name": "a", "type": "human_review", "parameters": {"review_of": "x"}}`, ``),
			[]want{{KindUnknownTask, l("tasks", 0, "parameters", "review_of")}}, true},
		{"retry bounds", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "retry": {"max_attempts": 21, "backoff_seconds": -1}}`, ``),
			[]want{{KindMaximum, l("tasks", 0, "retry", "max_attempts")}, {KindMinimum, l("tasks", 0, "retry", "backoff_seconds")}}, true},
		{"retry types", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "retry": {"max_attempts": 1.5, "backoff_seconds": 3601, "tries": 1}}`, ``),
			[]want{{KindExtraForbidden, l("tasks", 0, "retry", "tries")}, {KindType, l("tasks", 0, "retry", "max_attempts")}, {KindMaximum, l("tasks", 0, "retry", "backoff_seconds")}}, true},
		{"retry not an object", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "retry": 3}`, ``),
			[]want{{KindType, l("tasks", 0, "retry")}}, true},
		{"timeout bounds", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "timeout_seconds": 0}`, ``),
			[]want{{KindMinimum, l("tasks", 0, "timeout_seconds")}}, true},
		{"timeout too long", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "timeout_seconds": 2592001}`, ``),
			[]want{{KindMaximum, l("tasks", 0, "timeout_seconds")}}, true},
		{"timeout null", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "timeout_seconds": null, "description": null}`, ``), nil, true},
		{"description too long", def(`{"name": "a", "type": "delay", "parameters": {"seconds": 1}, "description": "`+strings.Repeat("d", 5001)+`"}`, ``),
			[]want{{KindStringTooLong, l("tasks", 0, "description")}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ValidateJSON([]byte(c.body), reg)
			var got []want
			for _, e := range r.Errors {
				got = append(got, want{e.Type, e.Loc})
				if e.Msg == "" {
					t.Errorf("%s has no message", e.Type)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("errors = %v, want %v\n%+v", got, c.want, r.Errors)
			}
			if (r.Order != nil) != c.order {
				t.Fatalf("order = %v, want one: %v", r.Order, c.order)
			}
		})
	}
}

func TestDuplicateAndCycleContext(t *testing.T) {
	r := ValidateJSON([]byte(def(ta+`,`+tb+`,`+ta, ``)), reg)
	if r.Errors[0].Ctx["first_index"] != 0 {
		t.Fatalf("ctx = %v", r.Errors[0].Ctx)
	}
	r = ValidateJSON([]byte(def(ta+`,`+tb+`,`+tc,
		`{"source": "c", "target": "a"}, {"source": "a", "target": "b"}, {"source": "b", "target": "c"}, {"source": "b", "target": "a"}`)), reg)
	if len(r.Errors) != 1 || !reflect.DeepEqual(r.Errors[0].Ctx["tasks"], []string{"a", "b", "a"}) ||
		!reflect.DeepEqual(r.Errors[0].Loc, l("edges", 1)) {
		t.Fatalf("cycle = %+v", r.Errors)
	}
}

func TestTwoCyclesTwoErrors(t *testing.T) {
	r := ValidateJSON([]byte(def(ta+`,`+tb+`,`+tc+`,{"name": "d", "type": "delay", "parameters": {"seconds": 1}}`,
		`{"source": "d", "target": "c"}, {"source": "c", "target": "d"}, {"source": "a", "target": "b"}, {"source": "b", "target": "a"}`)), reg)
	if len(r.Errors) != 2 || !reflect.DeepEqual(r.Errors[0].Ctx["tasks"], []string{"a", "b", "a"}) ||
		!reflect.DeepEqual(r.Errors[1].Ctx["tasks"], []string{"c", "d", "c"}) {
		t.Fatalf("cycles = %+v", r.Errors)
	}
}

// Among tasks ready at the same time, the order of the tasks array decides; a repeated edge counts once.
func TestOrderTies(t *testing.T) {
	tasksJSON := make([]string, 6)
	for i, n := range []string{"f", "e", "d", "c", "b", "a"} {
		tasksJSON[i] = fmt.Sprintf(`{"name": %q, "type": "delay", "parameters": {"seconds": 1}}`, n)
	}
	r := ValidateJSON([]byte(def(strings.Join(tasksJSON, ","),
		`{"source": "a", "target": "f"}, {"source": "c", "target": "e"}, {"source": "c", "target": "e"}, {"source": "b", "target": "d"}`)), reg)
	if len(r.Errors) != 0 {
		t.Fatal(r.Errors)
	}
	if want := []string{"c", "e", "b", "d", "a", "f"}; !reflect.DeepEqual(r.Order, want) {
		t.Fatalf("order = %v, want %v", r.Order, want)
	}
}

func TestManyProblemsInOnePass(t *testing.T) {
	body := `{"version": 3, "extra": 1, "tasks": [
		{"name": "a", "type": "sleep"},
		{"name": "b", "type": "http_request", "parameters": {"url": "gopher://x"}, "timeout_seconds": -5},
		{"name": "a", "type": "transform", "parameters": {"expression": "}"}}],
	 "edges": [{"source": "a", "target": "zz"}, {"source": "b", "target": "b", "condition": 1}]}`
	r := ValidateJSON([]byte(body), reg)
	got := map[string]bool{}
	for _, e := range r.Errors {
		got[e.Type] = true
	}
	for _, k := range []string{KindVersion, KindExtraForbidden, KindUnknownTaskType, "pattern", KindMinimum,
		KindDuplicateTaskName, KindJQSyntax, KindUnknownTask, KindSelfLoop, KindType} {
		if !got[k] {
			t.Errorf("no %s error in %+v", k, r.Errors)
		}
	}
	if r.Order != nil {
		t.Fatal("an unsound graph has an order")
	}
}

func TestValidateDecodedValues(t *testing.T) {
	d := map[string]any{"version": 1, "tasks": []any{
		map[string]any{"name": "a", "type": "delay", "parameters": map[string]any{"seconds": 1.5}, "retry": map[string]any{"max_attempts": 2}},
	}, "edges": []any{}}
	if r := Validate(d, reg); len(r.Errors) != 0 || r.Definition.Tasks[0].Retry.MaxAttempts != 2 {
		t.Fatalf("%+v", r)
	}
	if r := Validate("x", reg); r.Definition != nil || len(r.Errors) != 1 {
		t.Fatalf("%+v", r)
	}
}

func TestParseTemplate(t *testing.T) {
	parts, err := ParseTemplate("Hi {{ .name }}, {{.n}}!")
	want := []TemplatePart{{Text: "Hi "}, {Text: ".name", IsExpr: true}, {Text: ", "}, {Text: ".n", IsExpr: true}, {Text: "!"}}
	if err != nil || !reflect.DeepEqual(parts, want) {
		t.Fatalf("%+v %v", parts, err)
	}
	for _, bad := range []string{"{{", "a {{ }} b", "x {{ .a }} {{ .b"} {
		if _, err := ParseTemplate(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestJQKeyKeepsShape(t *testing.T) {
	for _, c := range [][2]string{
		{`.score > 37`, `.score > 11`},
		{`.a == "approved" and .n != 1000`, `.a == "" and .n != 1000`},
		{`.a1 + $x2 + .5 + 1e10`, `.a1 + $x2 + .5 + 1e10`},
		{`"a\(.b)" + "12"`, `"a\(.b)" + "12"`},
		{`.a # 12 "x"`, `.a # 12 "x"`},
		{`007 + 30`, `007 + 10`},
	} {
		if got := jqKey(c[0]); got != c[1] {
			t.Errorf("jqKey(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
