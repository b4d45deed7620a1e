package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
)

type fakeSource struct{ err error }

func (f fakeSource) Models(context.Context) ([]Model, error) {
	return []Model{{Name: "small", Provider: "openai"}}, f.err
}

func (f fakeSource) SQLDatabases(context.Context, uuid.UUID) ([]Option, error) {
	return []Option{{ID: "db1", Name: "Warehouse", Kind: "postgres"}}, f.err
}

func (f fakeSource) Credentials(context.Context, uuid.UUID) ([]Option, error) {
	return []Option{{ID: "c1", Name: "Stripe"}}, f.err
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBuiltinNamesAndSchemas checks what every built-in type must have. The list of types is the
// registry's alone: the contract, the catalog, the executors and the documentation are checked against it.
func TestBuiltinNamesAndSchemas(t *testing.T) {
	r := Builtin()
	if len(r.Names()) == 0 {
		t.Fatal("no built-in types")
	}
	for _, name := range r.Names() {
		typ, ok := r.Lookup(name)
		if !ok || typ.Description == "" {
			t.Fatalf("Lookup(%q) = %v, %v", name, typ, ok)
		}
		// Every parameter is documented, so that it can be shown to people and language models.
		props, _ := typ.Parameters["properties"].(m)
		for p, s := range props {
			if d, _ := s.(m)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", name, p)
			}
		}
		if r.OutputSchema(name) == nil {
			t.Errorf("%s has no output schema", name)
		}
	}
	if _, ok := r.Lookup("nope"); ok || r.OutputSchema("nope") != nil {
		t.Fatal("an unknown type was found")
	}
}

func TestNewRefusesBadTypes(t *testing.T) {
	for name, types := range map[string][]Type{
		"duplicate":  {{Name: "a"}, {Name: "a"}},
		"no name":    {{}},
		"bad schema": {{Name: "a", Parameters: m{"type": 5}}},
		"undeclared": {{Name: "a", Parameters: m{"type": "object"}, JQFields: []string{"expr"}}},
		"bad output": {{Name: "a", Output: m{"minimum": "x"}}},
		"example":    {{Name: "a", Example: &Example{Name: "x", Type: "b"}}}, // of another type
	} {
		if _, err := New(types...); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestCheckParametersValid(t *testing.T) {
	r := Builtin()
	for typ, params := range map[string]string{
		"transform":    `{"expression": "."}`,
		"condition":    `{"expression": ".ok"}`,
		"http_request": `{"url": "https://example.com/x", "method": "POST", "headers": {"X-A": "1"}, "body": {"a": [1]}, "timeout_seconds": 2.5, "credential_id": "8f0e3c4a-1b2d-4e5f-8a9b-0c1d2e3f4a5b"}`,
		"llm":          `{"prompt": "Hi {{ .name }}", "model": "small", "temperature": 0, "max_tokens": 10, "output_schema": {"type": "object"}}`,
		"human_review": `{}`,
		"sql_query":    `{"database_id": "8f0e3c4a-1b2d-4e5f-8a9b-0c1d2e3f4a5b", "query": "select $1", "parameters": [1, "a", null]}`,
		"email":        `{"to": ["a@example.com"], "subject": "Hi", "body": "Text"}`,
		"delay":        `{"seconds": 2592000}`,
		"external":     `{"queue": "ocr", "payload": [1, 2]}`,
	} {
		if p := r.CheckParameters(typ, decode(t, params)); len(p) > 0 {
			t.Errorf("%s: %+v", typ, p)
		}
	}
}

func TestCheckParametersProblems(t *testing.T) {
	r := Builtin()
	got := r.CheckParameters("http_request", decode(t,
		`{"url": "ftp://x", "method": "FETCH", "headers": {"X-A": 1}, "urll": 2, "timeout_seconds": 0, "credential_id": "nope"}`))
	want := []struct {
		loc []any
		typ string
	}{
		{[]any{"credential_id"}, "format"},
		{[]any{"headers", "X-A"}, "type"},
		{[]any{"method"}, "enum"},
		{[]any{"timeout_seconds"}, "exclusive_minimum"},
		{[]any{"url"}, "pattern"},
		{[]any{"urll"}, "additional_property"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if !reflect.DeepEqual(got[i].Loc, w.loc) || got[i].Type != w.typ || got[i].Msg == "" {
			t.Errorf("problem %d = %+v, want %v %s", i, got[i], w.loc, w.typ)
		}
	}

	got = r.CheckParameters("email", decode(t, `{"to": ["a@example.com", "bad"], "body": "x"}`))
	if len(got) != 2 || got[0].Type != "missing" || !reflect.DeepEqual(got[0].Loc, []any{"subject"}) ||
		got[1].Type != "format" || !reflect.DeepEqual(got[1].Loc, []any{"to", 1}) {
		t.Fatalf("email problems = %+v", got)
	}
	got = r.CheckParameters("delay", map[string]any{"seconds": json.Number("3e9")})
	if len(got) != 1 || got[0].Type != "maximum" || got[0].Msg != "Must be at most 2592000." {
		t.Fatalf("delay problems = %+v", got)
	}
	if got := r.CheckParameters("nope", m{}); len(got) != 1 || got[0].Type != "unknown_task_type" {
		t.Fatalf("unknown type = %+v", got)
	}
}

func TestCheckParametersTooDeep(t *testing.T) {
	var v any = "leaf"
	for range 10000 {
		v = []any{v}
	}
	got := Builtin().CheckParameters("external", m{"payload": v})
	if len(got) != 1 || got[0].Type != "too_deep" || len(got[0].Loc) != MaxParameterDepth || got[0].Loc[0] != "payload" {
		t.Fatalf("problems = %+v", got)
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("é", 300)
	s := Shorten(long).(string)
	if len(s) > shortString+len("…") || !strings.HasSuffix(s, "…") {
		t.Fatalf("Shorten(long) has %d bytes", len(s))
	}
	list := make([]any, 100)
	if got := Shorten(list).([]any); len(got) != shortItems+1 {
		t.Fatalf("Shorten(list) has %d items", len(got))
	}
	deep := m{"a": m{"b": m{"c": m{"d": 1}}}}
	if got := Shorten(deep).(m)["a"].(m)["b"].(m)["c"]; got != "{…1 entries}" {
		t.Fatalf("Shorten(deep) keeps %v", got)
	}
}

func TestDynamicData(t *testing.T) {
	r := Builtin()
	ctx, org := context.Background(), uuid.New()
	got, err := r.DynamicData(ctx, org, "llm", fakeSource{})
	want := map[string]any{"model": []any{map[string]any{"name": "small", "provider": "openai"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("llm = %v, %v", got, err)
	}
	got, _ = r.DynamicData(ctx, org, "sql_query", fakeSource{})
	if want := []any{map[string]any{"id": "db1", "name": "Warehouse", "type": "postgres"}}; !reflect.DeepEqual(got["database_id"], want) {
		t.Fatalf("sql_query = %v", got)
	}
	got, _ = r.DynamicData(ctx, org, "http_request", fakeSource{})
	if want := []any{map[string]any{"id": "c1", "name": "Stripe"}}; !reflect.DeepEqual(got["credential_id"], want) {
		t.Fatalf("http_request = %v", got)
	}
	if got, err := r.DynamicData(ctx, org, "delay", nil); err != nil || len(got) != 0 || got == nil {
		t.Fatalf("delay = %v, %v", got, err)
	}
	if _, err := r.DynamicData(ctx, org, "nope", fakeSource{}); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("unknown type: %v", err)
	}
	boom := errors.New("boom")
	if _, err := r.DynamicData(ctx, org, "llm", fakeSource{err: boom}); !errors.Is(err, boom) {
		t.Fatalf("source error: %v", err)
	}
}

// TestMismatch: the types a list lacks and the names it holds that are no type are both named.
func TestMismatch(t *testing.T) {
	r, err := New(Type{Name: "a"}, Type{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Mismatch("the list", []string{"b", "a"}); err != nil {
		t.Fatalf("the same names in another order: %v", err)
	}
	err = r.Mismatch("the list", []string{"a", "c", "c"})
	want := "the list differs from the task-type registry (internal/engine/tasks): it lacks b and names c, which the registry does not hold"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
