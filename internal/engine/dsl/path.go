package dsl

// Where a problem sits (its loc), and the readings of JSON values every check shares.

import (
	"encoding/json"
	"math"
	"strconv"
)

// path is where a task or an edge sits, with up to two fields below it; the []any loc of an error is built from
// it only when there is an error, so that a valid definition of 10,000 tasks costs no loc at all.
type path struct {
	section string // "tasks" or "edges"
	index   int
	a, b    string // fields below the item, "" for none
}

func (p path) with(field string) path {
	if p.a == "" {
		p.a = field
	} else {
		p.b = field
	}
	return p
}

// loc returns the error location of p followed by more.
func (p path) loc(more ...any) []any {
	out := make([]any, 0, 5+len(more))
	out = append(out, "definition", p.section, p.index)
	if p.a != "" {
		out = append(out, p.a)
	}
	if p.b != "" {
		out = append(out, p.b)
	}
	return append(out, more...)
}

// at returns a new path: loc followed by more. Paths are never shared between errors.
func at(loc []any, more ...any) []any {
	out := make([]any, 0, len(loc)+len(more))
	return append(append(out, loc...), more...)
}

// number reads a JSON number as encoding/json (float64, or json.Number with UseNumber) or Go code gives it.
func number(raw any) (float64, bool) {
	switch n := raw.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float32:
		return float64(n), true
	}
	return 0, false
}

// integer reads a JSON number with an integral value (2.0 is the integer 2, as in JSON schema); values beyond the
// int range saturate, which every bound check then refuses.
func integer(raw any) (int, bool) {
	f, ok := number(raw)
	if !ok || f != math.Trunc(f) {
		return 0, false
	}
	switch {
	case f >= math.MaxInt32:
		return math.MaxInt32, true
	case f <= math.MinInt32:
		return math.MinInt32, true
	}
	return int(f), true
}

func quoteList(list []string) string {
	s := ""
	for i, e := range list {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(e)
	}
	return s
}
