package httpx

import (
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// requestSchema is the schema a RequestError's JSON pointers start from: the parameter's, or the
// JSON body's; nil when there is none.
func requestSchema(req *openapi3filter.RequestError) *openapi3.Schema {
	switch {
	case req.Parameter != nil && req.Parameter.Schema != nil:
		return req.Parameter.Schema.Value
	case req.RequestBody != nil:
		if mt := req.RequestBody.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			return mt.Schema.Value
		}
	}
	return nil
}

// pointerLoc turns the JSON pointer of a schema error into location items: an index into an array is
// a number, as the contracts document (`["body", "tags", 0, "name"]`), a member name a string. kin-openapi
// gives both as strings; the schema says which is which.
func pointerLoc(root *openapi3.Schema, pointer []string) []any {
	out := make([]any, 0, len(pointer))
	s := root
	for _, p := range pointer {
		if s != nil && s.Items != nil && (s.Type == nil || s.Type.Is("array")) {
			if n, err := strconv.Atoi(p); err == nil {
				out = append(out, n)
				s = s.Items.Value
				continue
			}
		}
		out = append(out, p)
		s = member(s, p, 0)
	}
	return out
}

// member is the schema of a named member of an object schema, looking through its combinations.
func member(s *openapi3.Schema, name string, depth int) *openapi3.Schema {
	if s == nil || depth > 8 {
		return nil
	}
	if p := s.Properties[name]; p != nil {
		return p.Value
	}
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			if m := member(sub.Value, name, depth+1); m != nil {
				return m
			}
		}
	}
	if ap := s.AdditionalProperties.Schema; ap != nil {
		return ap.Value
	}
	return nil
}
