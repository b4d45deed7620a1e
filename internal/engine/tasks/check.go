package tasks

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxParameterDepth bounds the nesting of objects and arrays in a parameters object (the object itself is level 1).
// Deeper values are refused before schema validation, which recurses.
const MaxParameterDepth = 64

// Problem is one failing schema keyword.
type Problem struct {
	Loc   []any  // path inside the parameters object: ["url"], ["headers", "X-A"], ["to", 0]
	Type  string // short machine word: missing, type, enum, format, minimum, additional_property, ...
	Msg   string // a sentence in English
	Input any    // the offending value, shortened (for missing, the object that lacks the field)
}

var english = message.NewPrinter(language.English)

// CheckParameters validates params (a decoded JSON value: map[string]any etc., as encoding/json produces, and
// json.Number too) against the type's schema and returns one problem per failing keyword, with Loc relative to
// the parameters object (e.g. ["url"], ["headers","X-A"]), Type a short machine word ("missing", "type", "enum",
// "format", "minimum", "additional_property", ...), Msg a clear English message. The problems are sorted by
// location, so the same parameters always give the same list.
func (r *Registry) CheckParameters(typeName string, params any) []Problem {
	i, ok := r.byName[typeName]
	if !ok {
		return []Problem{{Type: "unknown_task_type", Msg: fmt.Sprintf("Unknown task type %q.", typeName), Input: Shorten(typeName)}}
	}
	if loc, deep := TooDeep(params, MaxParameterDepth); deep {
		return []Problem{{Loc: loc, Type: "too_deep", Input: "…",
			Msg: fmt.Sprintf("Parameters nest objects and arrays more than %d levels deep.", MaxParameterDepth)}}
	}
	err := r.params[i].Validate(params)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Problem{{Type: "invalid", Msg: err.Error()}}
	}
	var out []Problem
	collect(verr, params, &out)
	sort.SliceStable(out, func(a, b int) bool { return locKey(out[a].Loc) < locKey(out[b].Loc) })
	return out
}

// collect turns the leaves of the validator's error tree into problems. Groups (the schema, allOf, $ref) are
// looked through; anyOf and oneOf become one problem of their own, since listing every failing branch would
// only confuse.
func collect(e *jsonschema.ValidationError, root any, out *[]Problem) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			collect(c, root, out)
		}
		return
	case *kind.Required:
		loc, v := locate(root, e.InstanceLocation)
		for _, name := range k.Missing {
			*out = append(*out, Problem{Loc: appendLoc(loc, name), Type: "missing", Input: Shorten(v),
				Msg: fmt.Sprintf("Required parameter %q is missing.", name)})
		}
		return
	case *kind.AdditionalProperties:
		loc, v := locate(root, e.InstanceLocation)
		obj, _ := v.(map[string]any)
		for _, name := range k.Properties {
			*out = append(*out, Problem{Loc: appendLoc(loc, name), Type: "additional_property", Input: Shorten(obj[name]),
				Msg: fmt.Sprintf("Unknown parameter %q; check its spelling against the type's schema.", name)})
		}
		return
	}
	loc, v := locate(root, e.InstanceLocation)
	*out = append(*out, Problem{Loc: loc, Type: problemType(e.ErrorKind), Msg: describe(e.ErrorKind), Input: Shorten(v)})
}

func appendLoc(loc []any, name string) []any {
	return append(slices.Clip(loc), name)
}

// problemType names a keyword failure with the words pydantic-style clients know where there is one, and with
// the keyword in snake case otherwise.
func problemType(k jsonschema.ErrorKind) string {
	switch k.(type) {
	case *kind.Type:
		return "type"
	case *kind.MinLength:
		return "string_too_short"
	case *kind.MaxLength:
		return "string_too_long"
	case *kind.MinItems:
		return "too_short"
	case *kind.MaxItems:
		return "too_long"
	}
	path := k.KeywordPath()
	if len(path) == 0 {
		return "invalid"
	}
	return snake(path[0])
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("Must be %s, not %s.", strings.Join(k.Want, " or "), k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("Must be at least %s.", rat(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("Must be at most %s.", rat(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("Must be more than %s.", rat(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("Must be less than %s.", rat(k.Want))
	case *kind.MinLength:
		return fmt.Sprintf("Must have at least %d characters, not %d.", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("Must have at most %d characters, not %d.", k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("Must have at least %d items, not %d.", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("Must have at most %d items, not %d.", k.Want, k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("Items %d and %d are the same; each item may appear once.", k.Duplicates[0], k.Duplicates[1])
	}
	s := k.LocalizedString(english)
	if s == "" {
		return "Invalid value."
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// rat writes a schema bound the way it was written in the schema: 0, 2.5, 2592000.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// locate follows the validator's instance location (all strings) through the value, turning array indices into
// numbers, and returns the typed path with the value found there.
func locate(root any, path []string) ([]any, any) {
	loc := make([]any, 0, len(path)+1)
	v := root
	for _, seg := range path {
		switch c := v.(type) {
		case map[string]any:
			loc, v = append(loc, seg), c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return append(loc, seg), nil
			}
			loc, v = append(loc, i), c[i]
		default:
			return append(loc, seg), nil
		}
	}
	return loc, v
}

func locKey(loc []any) string {
	var b strings.Builder
	for _, p := range loc {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "\x00%010d", p)
		default:
			fmt.Fprintf(&b, "\x00%v", p)
		}
	}
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
