package dsl

import (
	"reflect"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
)

// The variables every jq expression of a flow may read besides its input. The engine passes them in this
// order (see CompileJQ).
const (
	VarInput = "$input" // the execution's input
	VarTasks = "$tasks" // the outputs of completed tasks upstream, by name
)

// Variables are the names CompileJQ declares, in the order their values are passed.
var Variables = []string{VarInput, VarTasks}

// Vars is what expressions read of an execution beyond their input, so that the engine hands a task only
// what its expressions read.
type Vars struct {
	Input bool     // $input
	Tasks []string // names read as $tasks.name, $tasks."name" or $tasks["name"], each once
	// AllTasks is $tasks read whole or by a computed key: every task upstream may be read.
	AllTasks bool
}

// Any is whether anything beyond the input is read (false for nil).
func (v *Vars) Any() bool { return v != nil && (v.Input || v.AllTasks || len(v.Tasks) > 0) }

// Merge adds what o reads.
func (v *Vars) Merge(o Vars) {
	v.Input = v.Input || o.Input
	v.AllTasks = v.AllTasks || o.AllTasks
	for _, n := range o.Tasks {
		if !slices.Contains(v.Tasks, n) {
			v.Tasks = append(v.Tasks, n)
		}
	}
}

// varsOf is what a compiled expression reads. Only an expression that names a variable is parsed again,
// so the many expressions that read only their input cost a substring search.
func varsOf(expr string) Vars {
	var v Vars
	if !strings.Contains(expr, "$") {
		return v
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return v
	}
	walkTerms(reflect.ValueOf(q), func(t *gojq.Term) {
		if t.Type != gojq.TermTypeFunc || t.Func == nil || len(t.Func.Args) > 0 {
			return
		}
		switch t.Func.Name {
		case VarInput:
			v.Input = true
		case VarTasks:
			if name, ok := staticKey(t.SuffixList); ok {
				v.Merge(Vars{Tasks: []string{name}})
			} else {
				v.AllTasks = true
			}
		}
	})
	return v
}

// staticKey is the task name of `$tasks.name`, `$tasks."name"` or `$tasks["name"]`: a first suffix
// that indexes by a constant string.
func staticKey(suffixes []*gojq.Suffix) (string, bool) {
	if len(suffixes) == 0 || suffixes[0].Index == nil || suffixes[0].Iter {
		return "", false
	}
	ix := suffixes[0].Index
	switch {
	case ix.Name != "":
		return ix.Name, true
	case ix.Str != nil && len(ix.Str.Queries) == 0:
		return ix.Str.Str, true
	case !ix.IsSlice && ix.End == nil && ix.Start != nil && ix.Start.Term != nil &&
		ix.Start.Term.Type == gojq.TermTypeString && ix.Start.Term.Str != nil && len(ix.Start.Term.Str.Queries) == 0:
		return ix.Start.Term.Str.Str, true
	}
	return "", false
}

// termType is the reflected type of a query term, the node walkTerms reports.
var termType = reflect.TypeFor[*gojq.Term]()

// walkTerms calls f on every term of a parsed query. gojq's syntax tree has some twenty node types, all
// plain structs of pointers and slices, so a reflective walk reaches every term without a case per node
// type that a new gojq release could leave out.
func walkTerms(v reflect.Value, f func(*gojq.Term)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Type() == termType {
			f(v.Interface().(*gojq.Term))
		}
		walkTerms(v.Elem(), f)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkTerms(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkTerms(v.Index(i), f)
		}
	}
}
