package integrations

import (
	"encoding/json"
	"math"
	"sort"
)

// inferObject is the JSON schema (draft 2020-12) of an object with these values as properties and
// defaults.
func inferObject(values map[string]any) map[string]any {
	props := make(map[string]any, len(values))
	for k, v := range values {
		p := infer(v)
		p["default"] = v
		props[k] = p
	}
	return map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"properties": props}
}

// infer is the schema of one value: nested objects and arrays are described all the way down.
func infer(v any) map[string]any {
	switch x := v.(type) {
	case nil:
		return map[string]any{"type": "null"}
	case bool:
		return map[string]any{"type": "boolean"}
	case string:
		if isDateTime(x) {
			return map[string]any{"type": "string", "format": "date-time"}
		}
		return map[string]any{"type": "string"}
	case float64:
		return number(x)
	case json.Number:
		f, _ := x.Float64()
		return number(f)
	case []any:
		s := map[string]any{"type": "array"}
		if len(x) > 0 {
			s["items"] = infer(x[0])
		}
		return s
	case map[string]any:
		props := make(map[string]any, len(x))
		for k, e := range x {
			props[k] = infer(e)
		}
		return map[string]any{"type": "object", "properties": props}
	}
	return map[string]any{}
}

func number(f float64) map[string]any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return map[string]any{"type": "integer"}
	}
	return map[string]any{"type": "number"}
}

// withDefaults copies a task type's parameter schema and sets each given value as its property's
// default; the registry's schema itself is shared and never changed.
func withDefaults(schema map[string]any, values map[string]any) map[string]any {
	out := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		out[k] = v
	}
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	props, _ := schema["properties"].(map[string]any)
	np := make(map[string]any, len(props))
	for k, v := range props {
		np[k] = v
		if val, ok := values[k]; ok {
			if p, ok := v.(map[string]any); ok {
				c := make(map[string]any, len(p)+1)
				for pk, pv := range p {
					c[pk] = pv
				}
				c["default"] = val
				np[k] = c
			}
		}
	}
	out["properties"] = np
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
