package main

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/testkit"
)

const committed = "../../../openapi/api/tasks.yaml"

// TestContractIsCurrent fails when openapi/api/tasks.yaml is not what the task registry gives: a type, a
// parameter, a description or an example changed and the contract did not.
func TestContractIsCurrent(t *testing.T) {
	want, err := Render(tasks.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("openapi/api/tasks.yaml is not what the task registry says: run `make generate` and commit it\n%s",
			testkit.FirstDifference(string(got), string(want)))
	}
}

func TestToOpenAPI(t *testing.T) {
	for name, c := range map[string]struct{ in, want string }{
		"nullable type": {`{"type": ["string", "null"], "minLength": 1}`,
			`{"type": "string", "nullable": true, "minLength": 1}`},
		"several types": {`{"type": ["string", "integer", "number", "null"]}`,
			`{"anyOf": [{"type": "string", "nullable": true}, {"type": "number", "format": "double"}]}`},
		"only null":     {`{"type": ["null"]}`, `{"type": "string", "enum": [null], "nullable": true}`},
		"const":         {`{"const": "x"}`, `{"enum": ["x"]}`},
		"null in enum":  {`{"type": "string", "enum": ["a", null]}`, `{"type": "string", "enum": ["a", null], "nullable": true}`},
		"exclusive min": {`{"type": "integer", "exclusiveMinimum": 0}`, `{"type": "integer", "minimum": 0, "exclusiveMinimum": true}`},
		"examples":      {`{"type": "string", "examples": ["a", "b"]}`, `{"type": "string", "example": "a"}`},
		"dropped": {`{"$schema": "x", "type": "object", "propertyNames": {"pattern": "^a"}, "additionalProperties": {"type": "number", "format": "float"}}`,
			`{"type": "object", "additionalProperties": {"type": "number", "format": "float"}}`},
		"nested": {`{"type": "object", "properties": {"a": {"type": "array", "items": {"const": 1}}, "b": true, "c": false}}`,
			`{"type": "object", "properties": {"a": {"type": "array", "items": {"enum": [1]}}, "b": {}, "c": {"not": {}}}}`},
	} {
		in := decode(t, c.in)
		before, _ := json.Marshal(in)
		out, err := toOpenAPI(in, "x")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if after, _ := json.Marshal(in); string(after) != string(before) {
			t.Errorf("%s: the input changed: %s", name, after)
		}
		if got, want := jsonOf(t, asMaps(out)), jsonOf(t, decode(t, c.want)); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	for name, in := range map[string]string{
		"unknown keyword":    `{"type": "string", "minLenght": 1}`,
		"reference":          `{"$ref": "#/$defs/a"}`,
		"nested unknown":     `{"properties": {"a": {"prefixItems": []}}}`,
		"bound and flag":     `{"minimum": 1, "exclusiveMinimum": 0}`,
		"types beside anyOf": `{"type": ["string", "number"], "anyOf": []}`,
	} {
		if _, err := toOpenAPI(decode(t, in), "x"); err == nil {
			t.Errorf("%s: converted", name)
		}
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	v, err := numbers(v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{"http_request": "HttpRequest", "llm": "Llm", "a__b": "AB"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q", in, got)
		}
	}
}

// exampleTasks are the registry's examples as a definition holds them.
func exampleTasks(t *testing.T) (*tasks.Registry, []json.RawMessage) {
	t.Helper()
	reg := tasks.Builtin()
	var out []json.RawMessage
	for _, name := range reg.Names() {
		typ, _ := reg.Lookup(name)
		raw, err := json.Marshal(typ.Example)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return reg, out
}

// TestExamplesFormAValidDefinition: the examples are valid tasks as the validator sees them, jq expressions
// and templates included, so that one copied into a flow works as it is.
func TestExamplesFormAValidDefinition(t *testing.T) {
	reg, examples := exampleTasks(t)
	raw, err := json.Marshal(map[string]any{"version": 1, "tasks": examples, "edges": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dsl.ValidateJSON(raw, reg).Errors {
		t.Errorf("%v: %s (%s)", e.Loc, e.Msg, e.Type)
	}
}

// TestServedSchemas reads the served contract: each example passes its type's task schema and
// FlowDefinitionTask, and together they make a FlowDefinition; a misspelt parameter, a missing one and an
// unknown type do not pass. So the conversion keeps what the registry accepts and refuses.
func TestServedSchemas(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(platformapi.OpenAPIJSON)
	if err != nil {
		t.Fatal(err)
	}
	schema := func(name string) *openapi3.Schema {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			t.Fatalf("the served contract has no schema %s", name)
		}
		return ref.Value
	}
	visit := func(s *openapi3.Schema, raw []byte) error {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		return s.VisitJSON(v)
	}
	reg, examples := exampleTasks(t)
	union := schema("FlowDefinitionTask")
	for i, name := range reg.Names() {
		task := schema(taskSchemaName(name))
		if task.Example == nil {
			t.Errorf("%s has no example", taskSchemaName(name))
		}
		if err := visit(task, examples[i]); err != nil {
			t.Errorf("%s: the example: %v", taskSchemaName(name), err)
		}
		if err := visit(union, examples[i]); err != nil {
			t.Errorf("FlowDefinitionTask: the example of %s: %v", name, err)
		}
	}
	def, err := json.Marshal(map[string]any{"version": 1, "tasks": examples, "edges": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := visit(schema("FlowDefinition"), def); err != nil {
		t.Errorf("FlowDefinition: the examples: %v", err)
	}
	for what, raw := range map[string]string{
		"misspelt parameter": `{"name": "a", "type": "delay", "parameters": {"second": 5}}`,
		"missing parameter":  `{"name": "a", "type": "http_request", "parameters": {"method": "GET"}}`,
		"missing parameters": `{"name": "a", "type": "transform"}`,
		"wrong value":        `{"name": "a", "type": "delay", "parameters": {"seconds": 0}}`,
		"unknown type":       `{"name": "a", "type": "sleep", "parameters": {"seconds": 5}}`,
	} {
		if err := visit(union, []byte(raw)); err == nil {
			t.Errorf("FlowDefinitionTask accepts a %s: %s", what, raw)
		}
	}
	for what, raw := range map[string]string{
		"human_review without parameters (none is required)": `{"name": "a", "type": "human_review"}`,
		"sql_query with parameters of every type":            `{"name": "a", "type": "sql_query", "parameters": {"database_id": "2d7e4b1a-9c3f-4e8d-a6b5-0f1e2d3c4b5a", "query": "select $1, $2, $3, $4", "parameters": ["a", 1.5, true, null]}}`,
	} {
		if err := visit(union, []byte(raw)); err != nil {
			t.Errorf("FlowDefinitionTask refuses a %s: %v", what, err)
		}
	}
}

// TestGoUnion: the generated Go type of a task is a union picked by `type`, so Go code reads a task of a
// definition as its type's struct.
func TestGoUnion(t *testing.T) {
	reg, examples := exampleTasks(t)
	for i, name := range reg.Names() {
		var task platformapi.FlowDefinitionTask
		if err := json.Unmarshal(examples[i], &task); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, err := task.ValueByDiscriminator()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := reflect.TypeOf(v).Name(); got != taskSchemaName(name) {
			t.Errorf("a %s task reads as %s", name, got)
		}
	}
	var task platformapi.FlowDefinitionTask
	if err := task.FromDelayTask(platformapi.DelayTask{Name: "wait", Parameters: platformapi.DelayParameters{Seconds: 60}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(task)
	if want := `{"name":"wait","parameters":{"seconds":60},"type":"delay"}`; string(raw) != want {
		t.Errorf("a delay task built in Go is %s, want %s", raw, want)
	}
}
