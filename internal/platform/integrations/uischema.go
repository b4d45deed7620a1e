package integrations

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// BuildUiSchema describes a form for parameters: the task type's declared schema with the values as
// defaults, or a schema inferred from the values. Nothing is stored.
func (s *Service) BuildUiSchema(ctx context.Context, req platformapi.BuildUiSchemaRequestObject) (platformapi.BuildUiSchemaResponseObject, error) {
	params := req.Body.Parameters
	order := memberOrder(httpx.RawBody(ctx), params)
	var schema map[string]any
	if req.Body.TaskType != nil {
		t, ok := s.registry.Lookup(*req.Body.TaskType)
		if !ok {
			return nil, httpx.Invalid([]any{"body", "task_type"}, "value_error",
				"unknown task type "+quote(*req.Body.TaskType)+"; see GET /api/integrations/catalog")
		}
		schema = withDefaults(t.Parameters, params)
		order = typeOrder(order, schema)
	} else {
		schema = inferObject(params)
	}
	ui := map[string]any{"ui:order": order}
	props, _ := schema["properties"].(map[string]any)
	for _, name := range order {
		p, _ := props[name].(map[string]any)
		ui[name] = map[string]any{"ui:widget": widget(p, params[name]), "ui:title": title(name)}
	}
	return platformapi.BuildUiSchema200JSONResponse{JsonSchema: schema, UiSchema: ui}, nil
}

// memberOrder reads the order of the parameters object's members from the raw body; without a body
// (a caller that is not HTTP), the map's keys in sorted order.
func memberOrder(raw []byte, params map[string]any) []string {
	var doc struct {
		Parameters json.RawMessage `json:"parameters"`
	}
	if json.Unmarshal(raw, &doc) == nil && len(doc.Parameters) > 0 {
		if keys, ok := objectKeys(doc.Parameters); ok {
			return keys
		}
	}
	return sortedKeys(params)
}

func objectKeys(raw json.RawMessage) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	keys := []string{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, false
		}
		if !seen[k] { // a repeated member keeps its first place, as its last value wins in the map
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, true
}

// typeOrder puts the given parameters first, in their order, then the type's other properties: its
// required ones first, then the rest by name.
func typeOrder(given []string, schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	out := []string{}
	seen := map[string]bool{}
	add := func(k string) {
		if _, ok := props[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range given {
		add(k)
	}
	if req, ok := schema["required"].([]string); ok {
		for _, k := range req {
			add(k)
		}
	}
	for _, k := range sortedKeys(props) {
		add(k)
	}
	return out
}

func widget(prop map[string]any, value any) string {
	if _, ok := prop["enum"]; ok {
		return "select"
	}
	switch prop["type"] {
	case "boolean":
		return "checkbox"
	case "string":
		if prop["format"] == "date-time" {
			return "datetime"
		}
		if s, ok := value.(string); ok && (len([]rune(s)) > 80 || strings.ContainsAny(s, "\r\n")) {
			return "textarea"
		}
		if max, ok := prop["maxLength"].(int); ok && max > 200 && value == nil {
			return "textarea"
		}
	}
	return "text"
}

// title turns a parameter name into a label: "max_rows" → "Max rows".
func title(name string) string {
	s := strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(name))
	if s == "" {
		return name
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

func isDateTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
