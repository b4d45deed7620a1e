package server_test

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// untypedAllowed lists the schemas of the Swagger 2.0 document that may go without a type: 2.0 has no
// way to list alternative types, so "any JSON value" can only be the schema that accepts everything.
// The OpenAPI 3.0 documents have no such exception.
var untypedAllowed = map[string]bool{"/definitions/JsonValue": true}

// TestSchemasAreTyped keeps every schema of the served documents typed. In OpenAPI 3.0 a schema
// without a type accepts any value and `nullable: true` without a type has no effect, so validators
// (kin-openapi, openapi-core, Prism) could not check what such a schema describes. A schema passes
// with a type, a $ref, or a composition (oneOf, anyOf, allOf) whose alternatives all pass.
func TestSchemasAreTyped(t *testing.T) {
	t.Parallel()
	for _, d := range []struct {
		name string
		raw  []byte
	}{{"/api openapi.json", platformapi.OpenAPIJSON}, {"/v1 openapi.json", v1api.OpenAPIJSON}, {"/v1 swagger.json", v1api.SwaggerJSON}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			if err := json.Unmarshal(d.raw, &doc); err != nil {
				t.Fatal(err)
			}
			w := &schemaWalker{}
			w.document(doc)
			if w.seen < 100 {
				t.Fatalf("only %d schemas found: the walk misses parts of the document", w.seen)
			}
			for _, p := range w.offenders {
				if !untypedAllowed[p] || !strings.Contains(d.name, "swagger") {
					t.Errorf("%s: schema without type (give it one, or typed oneOf alternatives)", p)
				}
			}
		})
	}
}

// schemaWalker visits every schema of an OpenAPI 3.0 or Swagger 2.0 document and records the JSON
// pointers of the untyped ones.
type schemaWalker struct {
	offenders []string
	seen      int
}

func (w *schemaWalker) document(doc map[string]any) {
	comps := obj(doc["components"])
	for _, n := range keys(obj(comps["schemas"])) {
		w.schema(obj(comps["schemas"])[n], pointer("/components/schemas", n))
	}
	for _, n := range keys(obj(doc["definitions"])) {
		w.schema(obj(doc["definitions"])[n], pointer("/definitions", n))
	}
	for _, sec := range []struct{ where, at string }{{"/components/parameters", "parameters"}, {"/components/headers", "headers"}} {
		for _, n := range keys(obj(comps[sec.at])) {
			w.parameter(obj(comps[sec.at])[n], pointer(sec.where, n))
		}
	}
	for _, n := range keys(obj(doc["parameters"])) {
		w.parameter(obj(doc["parameters"])[n], pointer("/parameters", n))
	}
	for _, n := range keys(obj(comps["requestBodies"])) {
		w.content(obj(comps["requestBodies"])[n], pointer("/components/requestBodies", n))
	}
	for _, n := range keys(obj(comps["responses"])) {
		w.response(obj(comps["responses"])[n], pointer("/components/responses", n))
	}
	for _, n := range keys(obj(doc["responses"])) {
		w.response(obj(doc["responses"])[n], pointer("/responses", n))
	}
	paths := obj(doc["paths"])
	for _, p := range keys(paths) {
		item := obj(paths[p])
		for _, method := range keys(item) {
			at := pointer(pointer("/paths", p), method)
			if method == "parameters" {
				w.parameters(item[method], at)
				continue
			}
			op := obj(item[method])
			w.parameters(op["parameters"], pointer(at, "parameters"))
			if body := obj(op["requestBody"]); body != nil {
				w.content(body, pointer(at, "requestBody"))
			}
			for _, code := range keys(obj(op["responses"])) {
				w.response(obj(op["responses"])[code], pointer(pointer(at, "responses"), code))
			}
		}
	}
}

func (w *schemaWalker) parameters(v any, at string) {
	list, _ := v.([]any)
	for i, p := range list {
		w.parameter(p, pointer(at, strconv.Itoa(i)))
	}
}

// parameter covers OpenAPI 3.0 parameters and headers (schema or content) and Swagger 2.0 ones (a body
// parameter's schema, or the type and items of any other).
func (w *schemaWalker) parameter(v any, at string) {
	p := obj(v)
	switch {
	case p == nil || p["$ref"] != nil:
	case p["schema"] != nil:
		w.schema(p["schema"], pointer(at, "schema"))
	case p["content"] != nil:
		w.content(p, at)
	default:
		w.schema(p, at)
	}
}

func (w *schemaWalker) content(v any, at string) {
	c := obj(obj(v)["content"])
	for _, mt := range keys(c) {
		if s := obj(c[mt])["schema"]; s != nil {
			w.schema(s, pointer(pointer(pointer(at, "content"), mt), "schema"))
		}
	}
}

func (w *schemaWalker) response(v any, at string) {
	r := obj(v)
	if r["schema"] != nil {
		w.schema(r["schema"], pointer(at, "schema"))
	}
	w.content(r, at)
	for _, h := range keys(obj(r["headers"])) {
		w.parameter(obj(r["headers"])[h], pointer(pointer(at, "headers"), h))
	}
}

func (w *schemaWalker) schema(v any, at string) {
	s := obj(v)
	if s == nil {
		return // additionalProperties: true, for example
	}
	w.seen++
	if !typed(s) {
		w.offenders = append(w.offenders, at)
	}
	for _, n := range keys(obj(s["properties"])) {
		w.schema(obj(s["properties"])[n], pointer(pointer(at, "properties"), n))
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		w.schema(s[k], pointer(at, k))
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		list, _ := s[k].([]any)
		for i, alt := range list {
			w.schema(alt, pointer(pointer(at, k), strconv.Itoa(i)))
		}
	}
}

// typed says whether a schema has a type of its own, is a reference, or is a composition of typed
// alternatives. `nullable` only counts next to a type, as OpenAPI 3.0.3 specifies.
func typed(s map[string]any) bool {
	if _, ok := s["type"]; ok {
		return true
	}
	if s["nullable"] == true {
		return false
	}
	if _, ok := s["$ref"]; ok {
		return true
	}
	composed := false
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		list, _ := s[k].([]any)
		for _, alt := range list {
			if a := obj(alt); a == nil || !typed(a) {
				return false
			}
			composed = true
		}
	}
	return composed
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pointer appends one reference token to a JSON pointer (RFC 6901 escaping).
func pointer(at, token string) string {
	return at + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}
