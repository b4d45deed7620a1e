package exports

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// flatSlow is the general path's flattening of one JSON value under prefix, as (key, value) pairs.
func flatSlow(prefix string, raw []byte) (object, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	o, ok := v.(object)
	if !ok {
		return object{{prefix, v}}, nil
	}
	var flat object
	flatten(&flat, prefix, o)
	return flat, nil
}

// same says whether two JSON texts hold the same value (strings may be escaped differently; numbers are
// compared as written, as the export writes them).
func same(a, b []byte) bool {
	x, errX := decode(a)
	y, errY := decode(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

// FuzzFlatten: the exports' fast path, which finds the flattened keys of a job's input and response by
// scanning PostgreSQL's text, gives the same columns in the same order, with the same values, as the
// general path that decodes the JSON; for any JSON document, not only PostgreSQL's spelling of one.
func FuzzFlatten(f *testing.F) {
	for _, s := range []string{`{"n": 1, "doc": {"name": "a, \"b\""}}`, `{"items": [{"qty": 2, "sku": "x"}], "total": 12.5}`,
		`{"a": {}, "b": {"c": {"d": null}}, "e": [], "f": ""}`, `"text"`, `[1, 2]`, `null`, `{}`, `{"a.b": {"c": true}, "a": {"b.c": false}}`,
		`{"k\"}": {"x{": "]"}, "u": "\u00e9\ud83d\ude00"}`, "{\n\t\"a\" :\r\n1\n,\"b\":{ }\n}", `{"a":1,"a":{"b":2}}`, `{"big": 1e400, "neg": -0}`} {
		f.Add([]byte(s))
	}
	var names keyNames // shared by the inputs, as by an export's rows
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || !utf8.Valid(raw) {
			return // the column is jsonb: PostgreSQL hands over valid JSON in UTF-8 only
		}
		slow, err := flatSlow("input", raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		fast := flattenRaw(nil, "input", raw, &names)
		if len(fast) != len(slow) {
			t.Fatalf("%s: fast path %d columns %v, general path %d %v", raw, len(fast), fast, len(slow), slow)
		}
		for i, m := range fast {
			want, err := marshal(slow[i].Value)
			if err != nil {
				t.Fatal(err)
			}
			if m.key != slow[i].Key || !same(appendCompact(nil, m.raw), want) || !same(appendRaw(nil, m.raw), want) {
				t.Fatalf("%s: column %d is %q = %s on the fast path, %q = %s on the general path", raw, i, m.key, m.raw, slow[i].Key, want)
			}
		}
	})
}
