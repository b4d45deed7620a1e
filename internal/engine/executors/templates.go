package executors

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// render fills a template parameter: each `{{ expr }}` is replaced by the first result of the jq
// expression on the attempt's input (with its variables), a string as it is and any other value as JSON,
// each expression within the template deadline of q. A failing expression fails the task for good: the
// same input would fail again.
func render(ctx context.Context, q JQ, p map[string]any, param string, in Input) (string, error) {
	tmpl, _ := p[param].(string)
	return renderText(ctx, q, param, tmpl, in)
}

func renderText(ctx context.Context, q JQ, where, tmpl string, in Input) (string, error) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	parts, err := dsl.ParseTemplate(tmpl)
	if err != nil {
		return "", Permanent(fmt.Errorf("%s: %w", where, err))
	}
	var b strings.Builder
	for _, part := range parts {
		if !part.IsExpr {
			b.WriteString(part.Text)
			continue
		}
		v, err := q.template(ctx, part.Text, in)
		if err != nil {
			return "", jqFailure(fmt.Errorf("%s: {{ %s }}: %w", where, part.Text, err))
		}
		if s, ok := v.(string); ok {
			b.WriteString(s)
			continue
		}
		j, err := json.Marshal(v)
		if err != nil {
			return "", Permanent(fmt.Errorf("%s: {{ %s }}: %w", where, part.Text, err))
		}
		b.WriteString(string(j))
	}
	return b.String(), nil
}

// fill renders the templates in a JSON value (an http_request's body, headers or query): every string
// holding `{{ }}` is a template, and a string that is one `{{ expr }}` and nothing else becomes the
// expression's value as it is, so `{"total": "{{ $tasks.extract.json.total }}"}` sends a number.
func fill(ctx context.Context, q JQ, where string, v any, in Input) (any, error) {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "{{") {
			return x, nil
		}
		if parts, err := dsl.ParseTemplate(x); err == nil && len(parts) == 1 && parts[0].IsExpr {
			out, err := q.template(ctx, parts[0].Text, in)
			if err != nil {
				return nil, jqFailure(fmt.Errorf("%s: {{ %s }}: %w", where, parts[0].Text, err))
			}
			return out, nil
		}
		return renderText(ctx, q, where, x, in)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			f, err := fill(ctx, q, where+"."+k, e, in)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			f, err := fill(ctx, q, fmt.Sprintf("%s[%d]", where, i), e, in)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	return v, nil
}

// httpTemplated are the parameters of an http_request that hold templates.
var httpTemplated = []string{"url", "headers", "query", "body"}

// filled is an http_request's parameters with their templates rendered (the task's own are not changed).
func filled(ctx context.Context, q JQ, in Input) (map[string]any, error) {
	p := in.Task.Parameters
	var out map[string]any
	for _, name := range httpTemplated {
		v, ok := p[name]
		if !ok {
			continue
		}
		f, err := fill(ctx, q, name, v, in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make(map[string]any, len(p))
			for k, v := range p {
				out[k] = v
			}
		}
		out[name] = f
	}
	if out == nil {
		return p, nil
	}
	return out, nil
}
