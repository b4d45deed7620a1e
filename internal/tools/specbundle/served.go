package main

import (
	"fmt"
	"sort"
	"strings"
)

// pendingMark is the operation extension that says the server does not implement the operation yet.
// It is a note to the bundler, never served: the served documents say it in words instead.
const pendingMark = "x-pending"

// pendingSummary ends the summary of an operation the server does not implement yet.
const pendingSummary = " (not available yet)"

// markPending turns every operation marked x-pending into what its reader needs to know: the summary
// says it is not available yet and 501 is among its responses (notImplemented is the reference of the
// shared 501 reply). The mark itself is removed. It answers the operationIds it marked, sorted.
func markPending(doc map[string]any, notImplemented string) ([]string, error) {
	var marked []string
	var errs []string
	for path, item := range asMap(doc["paths"]) {
		for method, v := range asMap(item) {
			op := asMap(v)
			if op == nil || method == "parameters" {
				continue
			}
			mark, ok := op[pendingMark]
			if !ok {
				continue
			}
			delete(op, pendingMark)
			if mark != true {
				errs = append(errs, fmt.Sprintf("%s %s: %s must be true or absent", method, path, pendingMark))
				continue
			}
			summary, _ := op["summary"].(string)
			if summary == "" {
				errs = append(errs, fmt.Sprintf("%s %s: a pending operation needs a summary to say so", method, path))
				continue
			}
			op["summary"] = summary + pendingSummary
			responses := ensureMap(op, "responses")
			if _, dup := responses["501"]; dup {
				errs = append(errs, fmt.Sprintf("%s %s: a pending operation gets its 501 reply from the bundler", method, path))
				continue
			}
			responses["501"] = map[string]any{"$ref": notImplemented}
			id, _ := op["operationId"].(string)
			marked = append(marked, id)
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	sort.Strings(marked)
	return marked, nil
}

// notServed says whether an extension is a setting of the code generator, a note to the bundler, or
// the converter's record of a Swagger 2.0 body parameter's name. The generator may read them; the
// served documents leave them out, because their readers have no use for them.
func notServed(key string) bool {
	return strings.HasPrefix(key, "x-go-") || strings.HasPrefix(key, "x-oapi-codegen-") || key == oneOfMark ||
		key == "x-originalParamName"
}

// served is a deep copy of doc without generator settings.
func served(doc any) any {
	switch v := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			if notServed(k) {
				continue
			}
			out[k] = served(val)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = served(val)
		}
		return out
	}
	return doc
}

// oneOfMark carries, in the Swagger 2.0 /v1 contract, the typed alternatives of a schema that 2.0
// cannot express (it has no oneOf). The OpenAPI 3.0 conversion turns it into oneOf; the served 2.0
// document leaves it out.
const oneOfMark = "x-oneOf"

// promoteOneOf replaces x-oneOf by oneOf in every schema of a converted OpenAPI 3.0 document.
func promoteOneOf(doc any) {
	switch v := doc.(type) {
	case map[string]any:
		if alts, ok := v[oneOfMark]; ok {
			v["oneOf"] = alts
			delete(v, oneOfMark)
		}
		for _, val := range v {
			promoteOneOf(val)
		}
	case []any:
		for _, val := range v {
			promoteOneOf(val)
		}
	}
}

// nullableAlternatives rewrites every schema that is nullable beside an allOf (the hand-written
// contracts' way to say "this reference or null", which the code generator reads as a pointer to
// the referenced type) into what OpenAPI 3.0.3 means by it: nullable adds null only to the schema's
// own type, and the allOf still has to hold, so a null value would be refused by a validator that
// reads the document to the letter (Stoplight Prism does). The served form says "the reference, or
// null" as anyOf of the two alternatives.
func nullableAlternatives(doc any) {
	switch v := doc.(type) {
	case map[string]any:
		if all, ok := v["allOf"].([]any); ok && v["nullable"] == true {
			var value any = map[string]any{"allOf": all}
			if len(all) == 1 {
				value = all[0]
			}
			null := map[string]any{"nullable": true, "enum": []any{nil}}
			if t, ok := v["type"]; ok {
				null["type"] = t
			}
			v["anyOf"] = []any{value, null}
			delete(v, "allOf")
		}
		for _, val := range v {
			nullableAlternatives(val)
		}
	case []any:
		for _, val := range v {
			nullableAlternatives(val)
		}
	}
}
