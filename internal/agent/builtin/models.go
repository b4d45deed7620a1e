package builtin

import (
	"fmt"
	"strings"
)

// extract is an llm task with a JSON answer holding the fields (and the model's confidence when a
// later review depends on it).
func (b *builder) extract(s step, confidence bool) {
	fields := s.fields
	if len(fields) == 0 {
		fields = []string{"data"}
	}
	props, required := map[string]any{}, []any{}
	for _, f := range fields {
		typ := "string"
		if numeric(f) {
			typ = "number"
		}
		props[fieldName(f)] = map[string]any{"type": []any{typ, "null"}, "description": "The " + f + ", null when the input does not give it."}
		required = append(required, fieldName(f))
	}
	props["confidence"] = map[string]any{"type": "number", "minimum": 0, "maximum": 1,
		"description": "How sure the extraction is, from 0 to 1."}
	required = append(required, "confidence")
	name := b.add("extract", "llm", s.clause, map[string]any{
		"system":        "You extract data from documents and messages. Answer with JSON only; leave a field null when the input does not give it.",
		"prompt":        "Extract the " + strings.Join(fields, ", ") + " from this input, with your confidence from 0 to 1:\n\n{{ . }}",
		"output_schema": map[string]any{"type": "object", "properties": props, "required": required},
		"temperature":   0,
	})
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = fieldName(f)
	}
	b.produced(name, "json", names)
}

func (b *builder) model(s step) {
	params := map[string]any{"temperature": 0}
	base := s.kind
	switch s.kind {
	case "classify":
		labels := s.labels
		if len(labels) == 0 {
			labels = []string{"positive", "neutral", "negative"}
		}
		enum := make([]any, len(labels))
		for i, l := range labels {
			enum[i] = l
		}
		params["prompt"] = "Classify this input as one of: " + strings.Join(labels, ", ") + ".\n\n{{ . }}"
		params["output_schema"] = map[string]any{"type": "object", "required": []any{"label", "confidence"},
			"properties": map[string]any{"label": map[string]any{"type": "string", "enum": enum},
				"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1}}}
		if len(s.labels) == 0 {
			defer func(n int) { b.assume(b.tasks[n]["name"].(string), "labels", labels) }(len(b.tasks))
		}
	case "summarize":
		params["prompt"] = "Summarize this input in a few sentences:\n\n{{ . }}"
	case "translate":
		lang := orDefault(s.language, "English")
		params["prompt"] = "Translate this input into " + lang + ":\n\n{{ . }}"
	}
	name := b.add(base, "llm", s.clause, params)
	if s.kind == "classify" {
		b.produced(name, "json", []string{"label", "confidence"})
	} else {
		b.produced(name, "text", nil)
	}
}

// review puts a person in the loop: always, or only when the model was less sure than the threshold —
// then a condition routes low-confidence answers to the review (its true branch) and the rest straight on
// (its false branch, which passes the data on), and the next task runs after whichever ran.
func (b *builder) review(s step) {
	if b.data == "" {
		// Nothing produced data yet: review the execution's input.
		b.add("review", "human_review", s.clause, map[string]any{"instructions": "Check the input: " + s.clause})
		return
	}
	params := map[string]any{"instructions": "Check the extracted values and correct them if needed.", "review_of": b.data}
	confident := b.dataKind == "json" && b.hasConfidence()
	if s.threshold <= 0 || !confident {
		if s.threshold > 0 {
			b.assume(b.data, "confidence", "reviewed always: the task before gives no confidence")
		}
		b.reviewed = b.add("review", "human_review", s.clause, params)
		return
	}
	check := b.add("check_confidence", "condition", "Is the model less sure than "+fmt.Sprint(s.threshold)+"?",
		map[string]any{"expression": fmt.Sprintf(".json.confidence < %v", s.threshold)})
	review := b.add("review", "human_review", s.clause, params)
	b.reviewed = review
	b.last = []edgeFrom{{source: check, branch: new(false)}, b.after(review)}
}

// hasConfidence says whether the data task's answer has a confidence to test.
func (b *builder) hasConfidence() bool {
	t := b.find(b.data)
	if t == nil {
		return false
	}
	schema, _ := params(t)["output_schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	_, ok := props["confidence"]
	return ok
}
