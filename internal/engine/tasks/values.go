package tasks

import (
	"fmt"
	"unicode/utf8"
)

// Bounds of Shorten: an error item repeats the value it is about, and that value may be a whole task or a
// megabyte string, which a reply must never echo in full.
const (
	shortString = 200 // bytes kept of a string
	shortItems  = 10  // entries kept of an object or array
	shortDepth  = 3   // levels of nesting kept
)

// Shorten returns a copy of a decoded JSON value small enough to repeat in an error: long strings are cut (with
// "…"), objects and arrays keep their first entries (in key order for objects, which is what encoding/json
// writes anyway) with a note of how many were left out, and nesting below a few levels becomes "…".
func Shorten(v any) any {
	return shorten(v, shortDepth)
}

func shorten(v any, depth int) any {
	switch v := v.(type) {
	case string:
		return shortenString(v)
	case map[string]any:
		if depth == 0 {
			return fmt.Sprintf("{…%d entries}", len(v))
		}
		keys := sortedKeys(v)
		out := make(map[string]any, min(len(keys), shortItems+1))
		for i, k := range keys {
			if i == shortItems {
				out["…"] = fmt.Sprintf("%d more entries", len(keys)-shortItems)
				break
			}
			out[shortenString(k)] = shorten(v[k], depth-1)
		}
		return out
	case []any:
		if depth == 0 {
			return fmt.Sprintf("[…%d items]", len(v))
		}
		n := min(len(v), shortItems)
		out := make([]any, 0, n+1)
		for _, e := range v[:n] {
			out = append(out, shorten(e, depth-1))
		}
		if len(v) > n {
			out = append(out, fmt.Sprintf("… %d more items", len(v)-n))
		}
		return out
	default:
		return v
	}
}

func shortenString(s string) string {
	if len(s) <= shortString {
		return s
	}
	cut := shortString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// TooDeep reports whether v nests objects and arrays more than max levels deep (v itself, when an object or array,
// is level 1), and if so the path to the first container past the limit. It never descends more than max+1
// levels, so neither a hostile value nor one that contains itself can exhaust the stack.
func TooDeep(v any, max int) ([]any, bool) {
	// The first walk takes keys in map order, which is cheap; only a value that is too deep is walked again in
	// sorted order, so that the path reported is always the same.
	if !exceeds(v, max) {
		return nil, false
	}
	var path []any
	tooDeep(v, max, &path)
	return path, true
}

func exceeds(v any, left int) bool {
	switch v := v.(type) {
	case map[string]any:
		if left == 0 {
			return true
		}
		for _, e := range v {
			if exceeds(e, left-1) {
				return true
			}
		}
	case []any:
		if left == 0 {
			return true
		}
		for _, e := range v {
			if exceeds(e, left-1) {
				return true
			}
		}
	}
	return false
}

func tooDeep(v any, left int, path *[]any) bool {
	switch v := v.(type) {
	case map[string]any:
		if left == 0 {
			return true
		}
		for _, k := range sortedKeys(v) {
			*path = append(*path, k)
			if tooDeep(v[k], left-1, path) {
				return true
			}
			*path = (*path)[:len(*path)-1]
		}
	case []any:
		if left == 0 {
			return true
		}
		for i, e := range v {
			*path = append(*path, i)
			if tooDeep(e, left-1, path) {
				return true
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	return false
}
