package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Builtin is the offline model every server has ("loopwork-builtin"): deterministic, no network, and
// answering from a prompt's input only (the package comment says how it reads one). It makes flows
// with llm tasks run, and testable, without a model.
type Builtin struct{}

// BuiltinModel is its name.
const BuiltinModel = "loopwork-builtin"

// Stream answers at once, in one delta.
func (Builtin) Stream(ctx context.Context, r Request, onDelta func(Delta) error) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	d := readPrompt(r.Messages, schemaNames(r.Schema, 0))
	var answer string
	if r.Schema != nil {
		b, _ := json.Marshal(fill(r.Schema, d))
		answer = string(b)
	} else {
		answer = textAnswer(d)
	}
	if err := onDelta(Delta{Text: answer}); err != nil {
		return Response{}, err
	}
	input := 0 // the system message is read too, as a real model's tokens count it
	for _, m := range r.Messages {
		input += len(strings.Fields(m.Content))
	}
	return Response{Model: BuiltinModel, Text: answer,
		Usage: Usage{InputTokens: input, OutputTokens: len(strings.Fields(answer))}}, nil
}

// schemaNames are the words of a schema's property names and enum values, which an instruction
// that lists them is told by.
func schemaNames(schema map[string]any, depth int) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		if strings.EqualFold(name, "confidence") {
			continue
		}
		out = append(out, strings.Join(words(name), " "))
		p, _ := p.(map[string]any)
		for _, e := range typeOf(p).enum {
			out = append(out, strings.Join(words(fmt.Sprint(e)), " "))
		}
		if depth < maxDepth {
			out = append(out, schemaNames(p, depth+1)...)
		}
	}
	return out
}
