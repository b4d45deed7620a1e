package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// taskTypes writes, for every built-in task type, its description and a table of its parameters from
// the registry's JSON schemas, which are also what the validator checks and the agent reads.
func taskTypes(string) (string, error) {
	reg := tasks.Builtin()
	var b strings.Builder
	for _, name := range reg.Names() {
		t, _ := reg.Lookup(name)
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\n", t.Name, strings.Join(strings.Fields(t.Description), " "))
		props, _ := t.Parameters["properties"].(map[string]any)
		if len(props) == 0 {
			b.WriteString("No parameters.\n\n")
		} else {
			required := map[string]bool{}
			if req, ok := t.Parameters["required"].([]string); ok {
				for _, r := range req {
					required[r] = true
				}
			}
			b.WriteString("| Parameter | Type | Required | Meaning |\n|---|---|---|---|\n")
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
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k, cell(schemaType(p)), req, cell(desc))
			}
			b.WriteString("\n")
		}
		if desc, _ := t.Output["description"].(string); desc != "" {
			fmt.Fprintf(&b, "Output: %s\n\n", strings.Join(strings.Fields(desc), " "))
		}
	}
	return b.String(), nil
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
