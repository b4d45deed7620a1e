package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Builtin is the offline model every server has ("loopwork-builtin"): deterministic, no network. Asked
// for JSON against a schema, it fills each property from the prompt's "name: value" lines (numbers,
// strings, enum values it finds), with a confidence of how many it found; otherwise it answers the
// prompt's last paragraph, shortened. It makes flows with llm tasks run, and testable, without a model.
type Builtin struct{}

// BuiltinModel is its name.
const BuiltinModel = "loopwork-builtin"

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?`)

// Stream answers at once, in one delta.
func (Builtin) Stream(ctx context.Context, r Request, onDelta func(Delta) error) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	var prompt strings.Builder
	for _, m := range r.Messages {
		if m.Role == "user" {
			prompt.WriteString(m.Content + "\n")
		}
	}
	text := prompt.String()
	var answer string
	if r.Schema != nil {
		b, _ := json.Marshal(fill(r.Schema, text))
		answer = string(b)
	} else {
		paras := strings.Split(strings.TrimSpace(text), "\n\n")
		answer = strings.TrimSpace(paras[len(paras)-1])
		if len(answer) > 500 {
			answer = answer[:500]
		}
	}
	if err := onDelta(Delta{Text: answer}); err != nil {
		return Response{}, err
	}
	return Response{Model: BuiltinModel, Text: answer,
		Usage: Usage{InputTokens: len(strings.Fields(text)), OutputTokens: len(strings.Fields(answer))}}, nil
}

// fill builds an object for a schema from the text's "name: value" mentions.
func fill(schema map[string]any, text string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	out := map[string]any{}
	found, wanted := 0, 0
	lower := strings.ToLower(text)
	for name, p := range props {
		if name == "confidence" {
			continue
		}
		wanted++
		p, _ := p.(map[string]any)
		label := strings.ReplaceAll(name, "_", " ")
		value, ok := near(lower, text, label)
		typ, _ := p["type"].(string)
		switch {
		case p["enum"] != nil:
			enum, _ := p["enum"].([]any)
			out[name] = enum[0]
			for _, e := range enum {
				if strings.Contains(lower, strings.ToLower(fmt.Sprint(e))) {
					out[name], ok = e, true
					break
				}
			}
		case typ == "number" || typ == "integer":
			out[name] = 0
			if m := numberRe.FindString(value); ok && m != "" {
				n, _ := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
				out[name] = n
			} else {
				ok = false
			}
		case typ == "boolean":
			out[name] = ok && has(strings.ToLower(value), "yes", "true")
		default:
			out[name] = strings.TrimSpace(value)
		}
		if ok {
			found++
		}
	}
	if _, ok := props["confidence"]; ok {
		c := 1.0
		if wanted > 0 {
			c = float64(found) / float64(wanted)
		}
		out["confidence"] = c
	}
	return out
}

// near finds the rest of the line after "label:" or "label" in the text.
func near(lower, text, label string) (string, bool) {
	i := strings.Index(lower, label)
	if i < 0 {
		return "", false
	}
	rest := text[i+len(label):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimLeft(rest, ":= \t"), true
}

func has(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
