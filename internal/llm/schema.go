package llm

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// schemaType is what a property's schema allows: its types other than null (in the schema's order),
// whether null is allowed, and its enum.
type schemaType struct {
	types    []string
	nullable bool
	enum     []any
}

// typeOf reads "type" (a name or a list such as ["number", "null"]), "nullable" (OpenAPI 3.0), "enum",
// "const", and the branches of "anyOf"/"oneOf", which add their types.
func typeOf(p map[string]any) schemaType {
	var t schemaType
	add := func(p map[string]any) {
		switch v := p["type"].(type) {
		case string:
			t.types = append(t.types, v)
		case []any:
			for _, x := range v {
				if s, ok := x.(string); ok {
					t.types = append(t.types, s)
				}
			}
		}
		if e, ok := p["enum"].([]any); ok {
			t.enum = append(t.enum, e...)
		}
		if c, ok := p["const"]; ok {
			t.enum = append(t.enum, c)
		}
		if n, _ := p["nullable"].(bool); n {
			t.nullable = true
		}
		if _, ok := p["properties"]; ok && p["type"] == nil {
			t.types = append(t.types, "object")
		}
	}
	add(p)
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, _ := p[k].([]any)
		for _, b := range branches {
			if b, ok := b.(map[string]any); ok {
				add(b)
			}
		}
	}
	if i := slices.Index(t.types, "null"); i >= 0 {
		t.nullable = true
		t.types = slices.DeleteFunc(t.types, func(s string) bool { return s == "null" })
	}
	if slices.Contains(t.enum, nil) {
		t.nullable = true
		t.enum = slices.DeleteFunc(slices.Clone(t.enum), func(v any) bool { return v == nil })
	}
	return t
}

// first is the type a value is answered in: the schema's first, or string when it names none.
func (t schemaType) first() string {
	if len(t.types) == 0 {
		return "string"
	}
	return t.types[0]
}

// zero is the answer for a value not found: null when allowed, else the type's zero value.
func (t schemaType) zero() any {
	switch {
	case t.nullable:
		return nil
	case len(t.enum) > 0:
		return t.enum[0]
	}
	switch t.first() {
	case "number", "integer":
		return 0.0
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return ""
}

var angleRe = regexp.MustCompile(`\s*<[^<>]*>`)

// convert reads a labelled value or a pattern's match as typ: numbers as their first sum or number
// (integers rounded), booleans as yes/no words, strings as the part of the value the field's kind
// asks for (the e-mail address, the date, the first word of a number), the rest as it is.
func convert(s, typ string, k kind, iso bool) (any, bool) {
	switch typ {
	case "number", "integer":
		v, ok := numberIn(s)
		if typ == "integer" {
			v = math.Round(v)
		}
		return v, ok
	case "boolean":
		w := strings.ToLower(strings.Trim(firstWord(s), ".,;!"))
		switch w {
		case "yes", "y", "true", "1", "paid", "on", "checked":
			return true, true
		case "no", "n", "false", "0", "unpaid", "off", "none":
			return false, true
		}
		return false, false
	}
	switch k {
	case kDate:
		d, ok := parseDate(s)
		if ok && !iso {
			d = dates(s)[0].value
		}
		return d, ok
	case kEmail:
		m := emailRe.FindString(s)
		return m, m != ""
	case kURL:
		m := find(urlRe, s, nil)
		return firstValue(m)
	case kPhone:
		return firstValue(find(phoneRe, s, phoneOK))
	case kInvoiceID, kOrderID:
		w := strings.Trim(firstWord(s), ".,;:#()")
		return w, w != ""
	case kCurrency:
		m := currencyRe.FindString(s)
		if c, ok := symbols[m]; ok {
			m = c
		}
		return m, m != ""
	case kAmount:
		if a := amounts(s); len(a) > 0 {
			return a[0].match.value, true
		}
	}
	s = strings.TrimSpace(angleRe.ReplaceAllString(s, ""))
	return s, s != ""
}

func firstValue(m []match) (any, bool) {
	if len(m) == 0 {
		return "", false
	}
	return m[0].value, true
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
