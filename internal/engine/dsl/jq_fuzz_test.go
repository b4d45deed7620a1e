package dsl

import (
	"strings"
	"testing"
)

// FuzzJQKey: the validator caches "this expression compiles" under jqKey, so every expression must
// compile exactly when the expression its key stands for does (the key is itself an expression of the
// same shape, and its own key); otherwise one flow's valid expression would vouch for another's
// invalid one.
func FuzzJQKey(f *testing.F) {
	for _, s := range []string{".score > 3", ".confidence < 0.9", `.label == "cat"`, `.a["b"] + 10`, `"x\(.a)" | test("[")`,
		"$x2 + 1", ".[0] | .a1", "1e999", "08", "0x1", `import "a" as x; .`, `include ""; .`, `@base64d "x"`,
		"reduce .[] as $i (0; . + $i) # sum", `{"a": 1, "b": [2, 3]}`, `."2"`, `.a | ltrimstr("pre")`, `"\u00e9"`,
		"def f(x): x * 2; f(.n)", `label $out | foreach .[] as $i (0; .+$i; if . > 3 then ., break $out else empty end)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		key := jqKey(expr)
		if jqKey(key) != key {
			t.Fatalf("jqKey(%q) = %q, whose key is %q", expr, key, jqKey(key))
		}
		_, err := CompileJQ(expr)
		_, keyErr := CompileJQ(key)
		if (err == nil) != (keyErr == nil) {
			t.Fatalf("%q compiles: %v; its key %q: %v", expr, err, key, keyErr)
		}
	})
}

// FuzzParseTemplate: a template splits into literal text without "{{" and non-empty trimmed
// expressions without "}}", which written back as {{ expr }} give the same parts again; text without
// "{{" is one literal, never refused.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"Summarise {{ .document.text }} in {{.n}} words.", "{{.a}}{{.b}}", "no expressions", "{{ }}",
		"{{ .a", "}} {{ .x }} }}", "{{{{.a}}}}", "{{ \"}}\" }}", "", "{", "a{{b}}c{{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := ParseTemplate(s)
		if err != nil {
			if !strings.Contains(s, "{{") {
				t.Fatalf("%q has no {{ and is refused: %v", s, err)
			}
			return
		}
		var b strings.Builder
		for i, p := range parts {
			switch {
			case p.Text == "":
				t.Fatalf("%q: empty part %d in %+v", s, i, parts)
			case p.IsExpr && (p.Text != strings.TrimSpace(p.Text) || strings.Contains(p.Text, "}}")):
				t.Fatalf("%q: expression %q", s, p.Text)
			case !p.IsExpr && strings.Contains(p.Text, "{{"):
				t.Fatalf("%q: literal %q holds {{", s, p.Text)
			case !p.IsExpr && i > 0 && !parts[i-1].IsExpr:
				t.Fatalf("%q: two literal parts in a row: %+v", s, parts)
			}
			if p.IsExpr {
				b.WriteString("{{ " + p.Text + " }}")
			} else {
				b.WriteString(p.Text)
			}
		}
		again, err := ParseTemplate(b.String())
		if err != nil || len(again) != len(parts) {
			t.Fatalf("%q parsed as %+v; written back as %q it parses as %+v (%v)", s, parts, b.String(), again, err)
		}
		for i := range parts {
			if again[i] != parts[i] {
				t.Fatalf("%q parsed as %+v; written back as %q it parses as %+v", s, parts, b.String(), again)
			}
		}
		if !strings.Contains(s, "{{") && s != "" && (len(parts) != 1 || parts[0].Text != s) {
			t.Fatalf("%q without expressions parsed as %+v", s, parts)
		}
	})
}
