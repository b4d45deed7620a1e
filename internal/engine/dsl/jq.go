package dsl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

// CompileJQ compiles a jq expression the way the engine runs it: no modules, an empty $ENV, so an expression can
// read neither the server's files nor its environment, and the two variables of Variables ($input, $tasks),
// whose values are passed in that order. The validator uses it too, so that what validates is what runs.
func CompileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }), gojq.WithVariables(Variables))
}

// expression checks one jq expression and reports whether it compiled.
func (v *validator) expression(p path, expr string) bool {
	if n := utf8.RuneCountInString(expr); n > MaxExpressionLength {
		v.add(Error{Type: KindStringTooLong, Loc: p.loc(), Input: expr,
			Msg: fmt.Sprintf("A jq expression may have at most %d characters, not %d.", MaxExpressionLength, n),
			Ctx: map[string]any{"max_length": MaxExpressionLength}})
		return false
	}
	key := jqKey(expr)
	if _, ok := v.jqOK[key]; ok {
		v.use(p, expr)
		return true
	}
	_, err := CompileJQ(expr)
	if err == nil {
		v.jqOK[key] = struct{}{}
		v.use(p, expr)
		return true
	}
	e := Error{Type: KindJQSyntax, Loc: p.loc(), Input: expr, Msg: "Invalid jq expression: " + err.Error() + "."}
	var perr *gojq.ParseError
	if errors.As(err, &perr) {
		e.Ctx = map[string]any{"offset": perr.Offset}
	}
	v.add(e)
	return false
}

// TemplatePart is a piece of a template: literal text, or a jq expression whose result replaces it.
type TemplatePart struct {
	Text   string // literal text, or the expression when IsExpr
	IsExpr bool
}

// ParseTemplate splits a template into literal text and `{{ expr }}` expressions. An expression ends at the first
// `}}`; a `{{` without its `}}` is an error. Literal text cannot contain `{{`.
func ParseTemplate(s string) ([]TemplatePart, error) {
	var parts []TemplatePart
	base := 0 // offset of s in the template, for messages
	for s != "" {
		open := strings.Index(s, "{{")
		if open < 0 {
			parts = append(parts, TemplatePart{Text: s})
			break
		}
		if open > 0 {
			parts = append(parts, TemplatePart{Text: s[:open]})
		}
		end := strings.Index(s[open+2:], "}}")
		if end < 0 {
			return nil, fmt.Errorf("the {{ at offset %d has no closing }}", base+open)
		}
		expr := strings.TrimSpace(s[open+2 : open+2+end])
		if expr == "" {
			return nil, fmt.Errorf("the {{ }} at offset %d holds no expression", base+open)
		}
		parts = append(parts, TemplatePart{Text: expr, IsExpr: true})
		base += open + 2 + end + 2
		s = s[open+2+end+2:]
	}
	return parts, nil
}

// template checks a template parameter: its syntax, then each expression in it.
func (v *validator) template(p path, s string) {
	parts, err := ParseTemplate(s)
	if err != nil {
		v.add(Error{Type: KindTemplateSyntax, Loc: p.loc(), Input: s, Msg: "Invalid template: " + err.Error() + "."})
		return
	}
	for _, part := range parts {
		if part.IsExpr {
			v.expression(p, part.Text)
		}
	}
}
