package server_test

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The functions here build requests the contract accepts, so that a walk over the operations that
// changes one value at a time reaches the check of that value rather than a complaint about another.

const sampleUUID = "5b0c9b9e-3c1d-4c55-9a52-9c3e2a7f5d11"

// sampleValue is a value of the schema: its example, default or first enum value when it has one,
// else the simplest value of its type and format.
func sampleValue(s *openapi3.Schema, depth int) any {
	switch {
	case s == nil || depth > 6:
		return nil
	case s.Example != nil:
		return s.Example
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.AllOf) > 0:
		out := map[string]any{}
		for _, sub := range s.AllOf {
			if m, ok := sampleValue(sub.Value, depth+1).(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		return out
	case len(s.OneOf) > 0:
		return sampleValue(s.OneOf[0].Value, depth+1)
	case len(s.AnyOf) > 0:
		return sampleValue(s.AnyOf[0].Value, depth+1)
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		out := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				out[name] = sampleValue(p.Value, depth+1)
			}
		}
		return out
	case s.Type.Is("array"):
		out := []any{}
		for i := uint64(0); i < s.MinItems; i++ {
			out = append(out, sampleValue(s.Items.Value, depth+1))
		}
		return out
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return true
	}
	switch s.Format {
	case "uuid":
		return sampleUUID
	case "date-time":
		return "2026-01-31T15:04:05Z"
	case "date":
		return "2026-01-31"
	case "email":
		return "someone@example.com"
	case "uri":
		return "https://example.com/"
	}
	if s.Pattern != "" {
		// A pattern has no simplest value; one of the usual shapes matches the ones the contracts use.
		for _, v := range []string{"sample", "1", "example.com", "sample_1", "SAMPLE"} {
			if ok, _ := regexp.MatchString(s.Pattern, v); ok {
				return v
			}
		}
	}
	if s.MinLength > 6 {
		return strings.Repeat("x", int(s.MinLength))
	}
	return "sample"
}

// sampleText is sampleValue as a path or query parameter carries it.
func sampleText(p *openapi3.Parameter) string {
	if p.Schema == nil {
		return "sample"
	}
	v := sampleValue(p.Schema.Value, 0)
	if a, ok := v.([]any); ok {
		if len(a) == 0 {
			return "sample"
		}
		v = a[0]
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// fillPath puts a sample value into every path parameter still in braces.
func fillPath(path string, params openapi3.Parameters) string {
	for _, p := range params {
		if p.Value.In == "path" {
			path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", url.PathEscape(sampleText(p.Value)))
		}
	}
	return path
}

// sampleQuery holds a sample value of every required query parameter but skip.
func sampleQuery(params openapi3.Parameters, skip string) url.Values {
	q := url.Values{}
	for _, p := range params {
		if p.Value.In == "query" && p.Value.Required && p.Value.Name != skip {
			q.Set(p.Value.Name, sampleText(p.Value))
		}
	}
	return q
}

// requiredBody is a sample of the operation's JSON body when it must have one, else "".
func requiredBody(op *openapi3.Operation) string {
	s := jsonBody(op)
	if s == nil || !op.RequestBody.Value.Required {
		return ""
	}
	b, _ := json.Marshal(sampleValue(s, 0))
	return string(b)
}

// jsonBody is the schema of an operation's JSON request body, or nil.
func jsonBody(op *openapi3.Operation) *openapi3.Schema {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// sampleObject is a JSON object of the schema with the field name set to the raw JSON literal value.
func sampleObject(s *openapi3.Schema, name, value string) string {
	m, _ := sampleValue(s, 0).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	delete(m, name)
	rest, _ := json.Marshal(m)
	key, _ := json.Marshal(name)
	if len(m) == 0 {
		return "{" + string(key) + ":" + value + "}"
	}
	return "{" + string(key) + ":" + value + "," + string(rest[1:])
}
