package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// taskTypes writes, for every built-in task type, its description, tables of its parameters and of its
// output from the registry's JSON schemas, which are also what the validator checks and the agent reads,
// and the registry's example task, which the contract shows too.
func taskTypes(string) (string, error) {
	reg := tasks.Builtin()
	var b strings.Builder
	b.WriteString("The /api contract (`/api/openapi.json`, Swagger UI at `/api/docs`) describes the same: " +
		"`FlowDefinitionTask` is one schema per type, picked by `type` (`TransformTask` for `transform`, …), " +
		"whose `parameters` follow the type's parameters schema (`TransformParameters`, …), with the example " +
		"below. The TypeScript SDK (`gen/ts`) exports them as types of the same names.\n\n")
	for _, name := range reg.Names() {
		t, _ := reg.Lookup(name)
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\n", t.Name, strings.Join(strings.Fields(t.Description), " "))
		if !fields(&b, t.Parameters, "Parameter", "Required") {
			b.WriteString("No parameters.\n\n")
		}
		if desc, _ := t.Output["description"].(string); desc != "" {
			fmt.Fprintf(&b, "Output: %s\n\n", strings.Join(strings.Fields(desc), " "))
		}
		fields(&b, t.Output, "Output field", "Always")
		if t.Example != nil {
			raw, err := compactJSON(t.Example)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "Example:\n\n```json\n%s\n```\n\n", pretty(raw, ""))
		}
	}
	return b.String(), nil
}

// fields writes the table of an object schema's properties, sorted by name, and reports whether it had
// any; the marked column says which are required (of parameters: must be given; of an output: always there).
func fields(b *strings.Builder, schema map[string]any, what, marked string) bool {
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return false
	}
	required := map[string]bool{}
	if req, ok := schema["required"].([]string); ok {
		for _, r := range req {
			required[r] = true
		}
	}
	fmt.Fprintf(b, "| %s | Type | %s | Meaning |\n|---|---|---|---|\n", what, marked)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, _ := props[k].(map[string]any)
		req := ""
		if required[k] {
			req = "yes"
		}
		desc, _ := p["description"].(string)
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", k, cell(schemaType(p)), req, cell(desc))
	}
	b.WriteString("\n")
	return true
}

// schemaType names a parameter's JSON schema type briefly: its type, its enumerated values, the type of
// an array's items.
func schemaType(p map[string]any) string {
	if enum, ok := p["enum"].([]any); ok {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = fmt.Sprintf("`%v`", v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	if enum, ok := p["enum"].([]string); ok {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = "`" + v + "`"
		}
		return "one of " + strings.Join(vals, ", ")
	}
	t := fmt.Sprint(p["type"])
	switch ty := p["type"].(type) {
	case nil:
		t = "any"
	case []any:
		parts := make([]string, len(ty))
		for i, x := range ty {
			parts[i] = fmt.Sprint(x)
		}
		t = strings.Join(parts, " or ")
	case []string:
		t = strings.Join(ty, " or ")
	}
	if t == "array" {
		if items, ok := p["items"].(map[string]any); ok {
			return "array of " + schemaType(items)
		}
	}
	if f, ok := p["format"].(string); ok {
		t += " (" + f + ")"
	}
	return t
}

// compactJSON is v as JSON on one line, with <, > and & as they are (a jq `>=` stays readable).
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// pretty indents JSON as people write it: an object or array that fits in a short line stays on one,
// larger ones get a line per member. Members keep the order they have in raw.
func pretty(raw json.RawMessage, indent string) string {
	if len(raw) <= 60 || (raw[0] != '{' && raw[0] != '[') {
		return spaced(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	open, _ := dec.Token()
	inner := indent + "  "
	var parts []string
	for dec.More() {
		prefix := ""
		if open == json.Delim('{') {
			key, _ := dec.Token()
			k, _ := compactJSON(key)
			prefix = string(k) + ": "
		}
		var member json.RawMessage
		if err := dec.Decode(&member); err != nil {
			return string(raw)
		}
		parts = append(parts, inner+prefix+pretty(member, inner))
	}
	closing := "}"
	if open == json.Delim('[') {
		closing = "]"
	}
	return fmt.Sprintf("%v\n%s\n%s%s", open, strings.Join(parts, ",\n"), indent, closing)
}

// spaced is compact JSON with a space after each colon and comma between members, for one-line values.
func spaced(raw json.RawMessage) string {
	var b strings.Builder
	inString, escaped := false, false
	for _, c := range string(raw) {
		b.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}
