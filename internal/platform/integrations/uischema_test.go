package integrations_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

type form struct {
	JSONSchema map[string]any `json:"json_schema"`
	UISchema   map[string]any `json:"ui_schema"`
}

func buildForm(t *testing.T, c *testkit.Caller, body string, want int) form {
	t.Helper()
	res, err := c.API.BuildUiSchemaWithBodyWithResponse(ctx, "application/json", strings.NewReader(body))
	testkit.Expect(t, res, err, want)
	var f form
	if want == http.StatusOK {
		if err := json.Unmarshal(res.Body, &f); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestUiSchemaInferred: types, formats and widgets come from the values, in the order they were sent.
func TestUiSchemaInferred(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	long := strings.Repeat("x", 81)
	f := buildForm(t, c, `{"parameters":{"zeta":1,"when":"2026-01-02T03:04:05Z","note":"`+long+`","on":true,
		"ratio":0.5,"tags":["a"],"nested":{"k":"v"},"lines":"a\nb","name":"short"}}`, http.StatusOK)
	order := []any{"zeta", "when", "note", "on", "ratio", "tags", "nested", "lines", "name"}
	if !reflect.DeepEqual(f.UISchema["ui:order"], order) {
		t.Fatalf("order %v", f.UISchema["ui:order"])
	}
	props := f.JSONSchema["properties"].(map[string]any)
	types := map[string]string{"zeta": "integer", "when": "string", "note": "string", "on": "boolean", "ratio": "number",
		"tags": "array", "nested": "object", "lines": "string", "name": "string"}
	for k, typ := range types {
		if p := props[k].(map[string]any); p["type"] != typ {
			t.Errorf("%s: type %v, want %s", k, p["type"], typ)
		}
	}
	if props["when"].(map[string]any)["format"] != "date-time" || props["zeta"].(map[string]any)["default"] != float64(1) {
		t.Fatalf("when/zeta: %v %v", props["when"], props["zeta"])
	}
	widgets := map[string]string{"when": "datetime", "note": "textarea", "on": "checkbox", "lines": "textarea", "name": "text"}
	for k, w := range widgets {
		if got := f.UISchema[k].(map[string]any)["ui:widget"]; got != w {
			t.Errorf("%s: widget %v, want %s", k, got, w)
		}
	}
	if f.UISchema["ratio"].(map[string]any)["ui:title"] != "Ratio" {
		t.Fatalf("title %v", f.UISchema["ratio"])
	}
}

// TestUiSchemaOfTaskType: a task type's declared schema with the values as defaults; an unknown type is 422.
func TestUiSchemaOfTaskType(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	f := buildForm(t, c, `{"task_type":"http_request","parameters":{"method":"POST","url":"https://example.com/hook"}}`, http.StatusOK)
	props := f.JSONSchema["properties"].(map[string]any)
	if props["url"].(map[string]any)["default"] != "https://example.com/hook" || props["method"].(map[string]any)["default"] != "POST" {
		t.Fatalf("defaults not filled: %v", props)
	}
	order := f.UISchema["ui:order"].([]any)
	if len(order) < 3 || order[0] != "method" || order[1] != "url" || len(order) != len(props) {
		t.Fatalf("order %v", order)
	}
	if f.UISchema["method"].(map[string]any)["ui:widget"] != "select" {
		t.Fatalf("an enum is a select: %v", f.UISchema["method"])
	}
	res, err := c.API.BuildUiSchemaWithBodyWithResponse(ctx, "application/json",
		strings.NewReader(`{"task_type":"teleport","parameters":{}}`))
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
	if !strings.Contains(string(res.Body), `"task_type"`) || !strings.Contains(string(res.Body), "teleport") {
		t.Fatalf("422 does not name the field: %s", res.Body)
	}
	res, err = c.API.BuildUiSchemaWithBodyWithResponse(ctx, "application/json", strings.NewReader(`{"parameters":[1]}`))
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
}
