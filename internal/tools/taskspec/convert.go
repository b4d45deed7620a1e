package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// The registry's schemas are JSON Schema draft 2020-12; the /api contract is OpenAPI 3.0.3, whose schema
// objects are an older dialect. toOpenAPI translates what 3.0 says differently, drops what only narrows a
// schema and 3.0 cannot say (so the served schema may accept more than the validator, never less: the
// validator stays the authority, and its problems come back in validation_errors), and refuses anything
// else, so that a keyword added to the registry is looked at here rather than served as 3.0 misreads it.

// keywords are the 2020-12 keywords 3.0 has with the same meaning, in the order the output lists them.
var keywords = []string{
	"type", "format", "enum", "nullable", "title", "description", "default", "example",
	"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern",
	"minItems", "maxItems", "uniqueItems", "items",
	"minProperties", "maxProperties", "required", "properties", "additionalProperties",
	"allOf", "anyOf", "oneOf", "not",
	"readOnly", "writeOnly", "deprecated",
}

// translated are the keywords 3.0 lacks or spells otherwise; toOpenAPI rewrites them into keywords above.
var translated = map[string]bool{"const": true, "examples": true}

// dropped are the keywords 3.0 lacks that only narrow what a schema accepts, or only annotate it.
var dropped = map[string]bool{
	"$schema": true, "$id": true, "$comment": true,
	"propertyNames": true, "patternProperties": true, "dependentRequired": true, "dependentSchemas": true,
	"if": true, "then": true, "else": true, "contains": true, "minContains": true, "maxContains": true,
	"unevaluatedProperties": true, "unevaluatedItems": true,
	"contentEncoding": true, "contentMediaType": true, "contentSchema": true,
}

// toOpenAPI converts one JSON schema (as plain returns it) into an OpenAPI 3.0.3 schema object; at names
// where it is, for errors.
func toOpenAPI(v any, at string) (object, error) {
	s, ok := v.(map[string]any)
	if !ok {
		// true and false are schemas in 2020-12; 3.0 has only the object form.
		if b, isBool := v.(bool); isBool {
			if b {
				return object{}, nil
			}
			return object{{"not", object{}}}, nil
		}
		return nil, fmt.Errorf("%s: a schema must be an object, not %T", at, v)
	}
	s = maps.Clone(s) // the keywords are rewritten in place below; the caller's schema stays as it was
	for k := range s {
		if !slices.Contains(keywords, k) && !translated[k] && !dropped[k] {
			return nil, fmt.Errorf("%s: keyword %q has no OpenAPI 3.0 translation in internal/tools/taskspec", at, k)
		}
		if dropped[k] {
			delete(s, k)
		}
	}
	if _, ok := s["example"]; ok {
		return nil, fmt.Errorf("%s: example is not a 2020-12 keyword; use examples", at)
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		s["example"] = ex[0]
	}
	delete(s, "examples")
	if c, ok := s["const"]; ok {
		if _, both := s["enum"]; both {
			return nil, fmt.Errorf("%s: const beside enum", at)
		}
		s["enum"] = []any{c}
		delete(s, "const")
	}
	if enum, ok := s["enum"].([]any); ok && slices.Contains(enum, nil) {
		s["nullable"] = true
	}
	if err := types(s, at); err != nil {
		return nil, err
	}
	if _, ok := s["format"]; s["type"] == "number" && !ok {
		// A JSON number is a double; without the format, oapi-codegen's Go type would be float32, which
		// changes values a client sends (an SQL parameter of 1234567.89).
		s["format"] = "double"
	}
	out := object{}
	for _, k := range keywords {
		val, ok := s[k]
		if !ok {
			continue
		}
		var err error
		switch k {
		case "exclusiveMinimum", "exclusiveMaximum":
			// 2020-12 gives the bound itself; 3.0 a flag beside minimum or maximum.
			bound := "minimum"
			if k == "exclusiveMaximum" {
				bound = "maximum"
			}
			if _, both := s[bound]; both {
				return nil, fmt.Errorf("%s: %s beside %s", at, k, bound)
			}
			out = append(out, field{bound, val}, field{k, true})
			continue
		case "items", "not":
			val, err = toOpenAPI(val, at+"."+k)
		case "additionalProperties":
			if _, isBool := val.(bool); !isBool {
				val, err = toOpenAPI(val, at+"."+k)
			}
		case "properties":
			props, _ := val.(map[string]any)
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names)
			o := object{}
			for _, n := range names {
				p, perr := toOpenAPI(props[n], at+"."+n)
				if perr != nil {
					return nil, perr
				}
				o = append(o, field{n, p})
			}
			val = o
		case "allOf", "anyOf", "oneOf":
			list, _ := val.([]any)
			alts := make([]any, len(list))
			for i, a := range list {
				if alts[i], err = toOpenAPI(a, fmt.Sprintf("%s.%s[%d]", at, k, i)); err != nil {
					return nil, err
				}
			}
			val = alts
		}
		if err != nil {
			return nil, err
		}
		out = append(out, field{k, val})
	}
	if anyValue(s) {
		// A schema of any value: the contract's JsonValue, whose typed alternatives validators can check.
		out = append(out, field{"allOf", []any{object{{"$ref", "#/components/schemas/JsonValue"}}}})
	}
	return out, nil
}

// anyValue is whether a schema accepts any JSON value: it names no type and composes nothing.
func anyValue(s map[string]any) bool {
	for _, k := range []string{"type", "allOf", "anyOf", "oneOf", "not", "enum", "$ref", "properties", "items"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	return true
}

// types rewrites a list of types, which 3.0 does not have: several become alternatives (anyOf), and null
// makes the first of them nullable (nullable adds null only to a type given beside it, so null cannot be
// an alternative of its own without one). integer goes when number is there too, since every integer is
// a number.
func types(s map[string]any, at string) error {
	list, ok := s["type"].([]any)
	if !ok {
		return nil
	}
	var names []string
	null := false
	for _, t := range list {
		name, _ := t.(string)
		if name == "null" {
			null = true
			continue
		}
		names = append(names, name)
	}
	if slices.Contains(names, "number") {
		names = slices.DeleteFunc(names, func(n string) bool { return n == "integer" })
	}
	delete(s, "type")
	switch {
	case len(names) == 1:
		s["type"] = names[0]
		if null {
			s["nullable"] = true
		}
	case len(names) == 0 && null:
		// Only null: a type that allows null, narrowed to it.
		s["type"] = "string"
		s["nullable"] = true
		s["enum"] = []any{nil}
	default:
		if _, taken := s["anyOf"]; taken {
			return fmt.Errorf("%s: a list of types beside anyOf", at)
		}
		alts := make([]any, 0, len(names))
		for i, n := range names {
			alt := map[string]any{"type": n}
			if null && i == 0 {
				alt["nullable"] = true
			}
			alts = append(alts, alt)
		}
		s["anyOf"] = alts
	}
	return nil
}

// camel turns a type name into the schemas' prefix: http_request → HttpRequest.
func camel(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
