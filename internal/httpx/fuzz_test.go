package httpx_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/httpx"
)

// format writes a mask in one canonical spelling: names sorted, no blanks, * first.
func format(m *httpx.Mask) string {
	if m == nil {
		return ""
	}
	var parts []string
	if m.All {
		parts = append(parts, "*")
	}
	names := make([]string, 0, len(m.Fields))
	for name := range m.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if sub := m.Fields[name]; sub != nil {
			name += "{" + format(sub) + "}"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ",")
}

// keep is what a mask means on a decoded document, written plainly: on an object the named fields (and
// with * every field), each through its nested mask; on an array the mask of each element; anything else
// whole.
func keep(m *httpx.Mask, v any) any {
	if m == nil {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if sub, named := m.Fields[k]; named {
				out[k] = keep(sub, val)
			} else if m.All {
				out[k] = val
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = keep(m, e)
		}
		return out
	}
	return v
}

// FuzzMask: no header makes the parser panic; a parsed mask written canonically parses to the same
// mask; applied to any JSON body it gives valid JSON holding exactly what the mask keeps of the body,
// and applying it again changes nothing.
func FuzzMask(f *testing.F) {
	for _, m := range []string{"id,name", "{id,jobs{id,status}}", "*", " { id , settings { b { c } } , } ", "*,settings{a}",
		"a{b},a{c},a", "jobs{*,tags}", "{", "id}", "a{b{c{d}}}", "*{id}", "id,{name}", "a\tb"} {
		f.Add(m, []byte(doc))
	}
	f.Add("a{b}", []byte(`[{"a":{"b":1,"c":2},"a":[{"b":[],"x":null}]}, 3, "s", null, [[{"a":1}]]]`))
	f.Add("x", []byte(` "just a string" `))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		m, err := httpx.ParseMask(header)
		if err != nil {
			if m != nil || !strings.HasPrefix(err.Error(), "is ") && !strings.HasPrefix(err.Error(), "has ") && !strings.HasPrefix(err.Error(), "misses ") {
				t.Fatalf("ParseMask(%q) = %v, %v: an error reads \"the field mask <error>\"", header, m, err)
			}
			return
		}
		canon := format(m)
		again, err := httpx.ParseMask(canon)
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("ParseMask(%q) = %s, which parses as %s (%v)", header, canon, format(again), err)
		}
		if m == nil || !json.Valid(body) {
			return
		}
		out, err := m.Apply(body)
		if err != nil || !json.Valid(out) {
			t.Fatalf("mask %s on %s: %s, %v", canon, body, out, err)
		}
		var in, got any
		json.Unmarshal(body, &in)
		json.Unmarshal(out, &got)
		if want := keep(m, in); !reflect.DeepEqual(got, want) {
			t.Fatalf("mask %s on %s: got %s, want %v", canon, body, out, want)
		}
		if twice, err := m.Apply(out); err != nil || !bytes.Equal(twice, out) {
			t.Fatalf("mask %s applied twice: %s, then %s (%v)", canon, out, twice, err)
		}
	})
}

// FuzzPaging: the /api page and limit give a non-negative OFFSET and a positive LIMIT, whatever numbers
// the query carries; a page too far out to count is past the end of every list.
func FuzzPaging(f *testing.F) {
	f.Add(1, 20, true)
	f.Add(0, -1, true)
	f.Add(math.MaxInt, 100, true)
	f.Add(1<<40+1, 1<<30, true)
	f.Fuzz(func(t *testing.T, page, limit int, given bool) {
		p := httpx.NewPaging(nil, nil)
		if given {
			p = httpx.NewPaging(&page, &limit)
		}
		end := math.MaxInt
		if p.Page-1 <= math.MaxInt/p.Limit {
			end = (p.Page - 1) * p.Limit
		}
		if p.Page < 1 || p.Limit < 1 || p.Offset() != end {
			t.Fatalf("page %d limit %d: %+v, OFFSET %d", page, limit, p, p.Offset())
		}
	})
}
