package llm

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
)

// How sure the model is of a value: read after its label, found as the only value of its shape, picked
// among several, or not found.
const (
	sureLabelled  = 1.0
	surePattern   = 0.8
	sureAmbiguous = 0.5
	sureMissing   = 0.0
)

const maxDepth = 4 // nested objects deeper than this are left empty

// fill answers a schema from the input: an object for an object schema, with each property found in
// the input (or null, or its type's zero value) and "confidence" the mean of how sure it is of the
// others; a value of the schema's type otherwise.
func fill(schema map[string]any, d *doc) any {
	if t := typeOf(schema); t.first() == "string" && len(t.enum) == 0 {
		return textAnswer(d) // a bare string is a text answer, not a field of the input
	}
	v, _ := d.value(nil, schema, 0)
	return v
}

// object fills an object schema's properties, and its confidence property from how sure it is of them.
func (d *doc) object(prefix []string, schema map[string]any, depth int) (map[string]any, float64) {
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	out := map[string]any{}
	var confidence string
	sum, n := 0.0, 0
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if strings.EqualFold(name, "confidence") {
			confidence = name
			continue
		}
		var sure float64
		out[name], sure = d.value(append(slices.Clip(prefix), words(name)...), p, depth+1)
		sum, n = sum+sure, n+1
	}
	mean := 1.0
	if n > 0 {
		mean = math.Round(sum/float64(n)*100) / 100
	}
	if confidence != "" {
		p, _ := props[confidence].(map[string]any)
		if t := typeOf(p); t.first() == "integer" {
			out[confidence] = math.Round(mean)
		} else {
			out[confidence] = mean
		}
	}
	return out, mean
}

// value fills one property, named by the words of its name (its parents' first), and says how sure it is.
func (d *doc) value(name []string, p map[string]any, depth int) (any, float64) {
	t := typeOf(p)
	format, _ := p["format"].(string)
	c := conceptOf(name, format)
	var v any
	sure := sureMissing
	first := t.first()
	switch {
	case len(t.enum) > 0:
		v, sure = d.choose(c.labels, t.enum)
	case first == "object":
		if depth <= maxDepth {
			v, sure = d.object(name, p, depth)
		} else {
			v = map[string]any{}
		}
	case first == "array":
		items, _ := p["items"].(map[string]any)
		v, sure = d.list(items, c)
	default:
		v, sure = d.scalar(c, first, format, name)
	}
	if sure == sureMissing && (first != "object" || len(t.enum) > 0) {
		v = t.zero()
	}
	return v, sure
}

// scalar finds a string, number, integer or boolean: after the field's labels, the most telling label
// first; else, for a field whose shape a pattern can tell, as the only such value in the input.
func (d *doc) scalar(c concept, typ, format string, name []string) (any, float64) {
	iso := format == "date" || slices.Contains(name, "date")
	read := func(s string) (any, bool) { return convert(s, typ, c.kind, iso) }
	if len(c.labels) > 0 {
		var vals []any
		best := -1
		for _, h := range d.labelled(c.labels) {
			if best >= 0 && h.rank > best {
				break
			}
			if v, ok := read(h.value); ok {
				best, vals = h.rank, appendNew(vals, v)
			}
		}
		if len(vals) == 1 {
			return vals[0], sureLabelled
		}
		if len(vals) > 1 {
			return vals[0], sureAmbiguous
		}
	}
	if !c.fallback {
		return nil, sureMissing
	}
	vals := d.unlabelled(c, read)
	switch {
	case len(vals) == 0:
		return nil, sureMissing
	case len(vals) == 1:
		return vals[0], surePattern
	case c.kind == kAmount:
		// Of several sums, an invoice's total is the largest: the others are its parts.
		return slices.MaxFunc(vals, func(a, b any) int {
			x, _ := a.(float64)
			y, _ := b.(float64)
			return cmp.Compare(x, y)
		}), sureAmbiguous
	default:
		return vals[0], sureAmbiguous
	}
}

// list fills an array of scalars with every distinct value the field's labels or pattern find.
func (d *doc) list(items map[string]any, c concept) (any, float64) {
	t := typeOf(items)
	out := []any{}
	if len(t.enum) > 0 {
		for _, e := range t.enum {
			if v, sure := d.choose(c.labels, []any{e}); sure >= surePattern {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			return out, sureMissing
		}
		return out, surePattern
	}
	if t.first() == "object" || t.first() == "array" {
		return out, sureMissing
	}
	format, _ := items["format"].(string)
	read := func(s string) (any, bool) { return convert(s, t.first(), c.kind, format == "date") }
	sure := sureMissing
	for _, h := range d.labelled(c.labels) {
		if v, ok := read(h.value); ok {
			out, sure = appendNew(out, v), sureLabelled
		}
	}
	if len(out) == 0 && c.fallback {
		out = append(out, d.unlabelled(c, read)...)
		if len(out) > 0 {
			sure = surePattern
		}
	}
	if len(out) > maxHits {
		out = out[:maxHits]
	}
	return out, sure
}

func appendNew(vals []any, v any) []any {
	if slices.Contains(vals, v) {
		return vals
	}
	return append(vals, v)
}
