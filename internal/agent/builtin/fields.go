package builtin

import (
	"regexp"
	"strings"
)

// preferReviewed makes the tasks after a new review read its corrected output where they read what it
// reviews: $tasks.data becomes ($tasks.review // $tasks.data), null when the review was skipped.
func (b *builder) preferReviewed(review, data string) {
	ref := regexp.MustCompile(`\$tasks\.` + regexp.QuoteMeta(data) + `\b`)
	for _, t := range b.tasks {
		if !b.upstream(nameOf(t))[review] {
			continue
		}
		t["parameters"] = replaceStrings(params(t), func(s string) string {
			if strings.Contains(s, "// $tasks."+data) {
				return s
			}
			return ref.ReplaceAllString(s, "($tasks."+review+" // $tasks."+data+")")
		})
	}
}

// alsoExtract adds fields to the extraction the flow has ("also extract the due date"), to its schema
// and prompt and to the bodies and messages built from it.
func (e *editor) alsoExtract(clause, l string) bool {
	m := alsoFields.FindStringSubmatch(clause)
	b := e.b
	if m == nil {
		return false
	}
	var extraction map[string]any
	for _, t := range b.tasks {
		if _, ok := params(t)["output_schema"].(map[string]any); ok && typeOf(t) == "llm" {
			extraction = t
		}
	}
	if extraction == nil {
		return false
	}
	schema := params(extraction)["output_schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return false
	}
	req, _ := schema["required"].([]any)
	var added []string
	for _, f := range list(strings.TrimSuffix(m[1], " from it")) {
		n := fieldName(f)
		if _, ok := props[n]; ok {
			continue
		}
		typ := "string"
		if numeric(f) {
			typ = "number"
		}
		props[n] = map[string]any{"type": []any{typ, "null"}, "description": "The " + f + ", null when the input does not give it."}
		req = append(req, n)
		added = append(added, n)
	}
	schema["required"] = req
	if prompt, _ := params(extraction)["prompt"].(string); strings.HasPrefix(prompt, "Extract the ") {
		i := strings.Index(prompt, " from this input")
		if i > 0 {
			params(extraction)["prompt"] = prompt[:i] + ", " + strings.ReplaceAll(strings.Join(added, ", "), "_", " ") + prompt[i:]
		}
	}
	b.extendOutputs(nameOf(extraction), added)
	return true
}

// extendOutputs adds fields to the POST bodies and e-mail texts that list the extraction's fields.
func (b *builder) extendOutputs(extraction string, fields []string) {
	field := regexp.MustCompile(`^\{\{ (.*\$tasks\.` + regexp.QuoteMeta(extraction) + `\)?)\.json\.[a-z0-9_]+ \}\}$`)
	for _, t := range b.tasks {
		p := params(t)
		if body, ok := p["body"].(map[string]any); ok && typeOf(t) == "http_request" {
			for _, v := range body {
				if m := field.FindStringSubmatch(v.(string)); m != nil {
					for _, f := range fields {
						body[f] = "{{ " + m[1] + ".json." + f + " }}"
					}
					break
				}
			}
		}
		if text, ok := p["body"].(string); ok && typeOf(t) == "email" {
			lines := strings.Split(text, "\n")
			if m := regexp.MustCompile(`\{\{ (.*\$tasks\.` + regexp.QuoteMeta(extraction) + `\)?)\.json\.`).FindStringSubmatch(lines[len(lines)-1]); m != nil {
				for _, f := range fields {
					lines = append(lines, strings.ReplaceAll(f, "_", " ")+": {{ "+m[1]+".json."+f+" }}")
				}
				p["body"] = strings.Join(lines, "\n")
			}
		}
	}
}
