package dsl

import (
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// validator holds the state of one Validate call.
type validator struct {
	reg     *tasks.Registry
	def     *Definition
	list    []Error
	omitted int
	// unsound is set by anything that keeps the task graph from being known exactly: a task without a valid
	// unique name, an edge whose ends are not known tasks, a self-loop, a cycle, a missing or malformed array.
	unsound bool
	names   map[string]int      // valid task name → index of its first task
	jqOK    map[string]struct{} // keys (jqKey) of expressions that compiled, so a repeated shape compiles once
	refs    []taskRef           // parameters naming other tasks, checked once every name is known
	links   []link              // edges between known tasks, self-loops left out
	// tasksKnown says the tasks array could be read; without it, edges naming tasks are not reported as
	// dangling, since every one of them would be.
	tasksKnown bool
	order      []string
	types      []string // task types by index in the tasks array ("" when unknown)
	uses       []use    // expressions that read variables, checked once the graph is known
	guards     []guard  // edges between known tasks, guarded or not
	warnings   []Error  // see Result.Warnings
	// warningsLeft counts the warnings past MaxWarnings, which are not recorded.
	warningsLeft int
}

type taskRef struct {
	loc  []any
	name string
}

func newValidator(reg *tasks.Registry) *validator {
	return &validator{reg: reg, names: map[string]int{}, jqOK: map[string]struct{}{}, warnings: []Error{}}
}

// add records a problem, or only counts it once MaxErrors are recorded: a garbage definition of 100,000 edges
// must not produce a reply of 100,000 items.
func (v *validator) add(e Error) {
	if len(v.list) >= MaxErrors {
		v.omitted++
		return
	}
	e.Input = tasks.Shorten(e.Input)
	v.list = append(v.list, e)
}

func (v *validator) errors() []Error {
	out := v.list
	if v.omitted > 0 {
		out = append(out, Error{Type: KindTooManyErrors, Loc: []any{"definition"},
			Msg: fmt.Sprintf("%d more problems were found and are not listed.", v.omitted),
			Ctx: map[string]any{"omitted": v.omitted}})
	}
	if out == nil {
		out = []Error{}
	}
	return out
}

var definitionFields = []string{"version", "tasks", "edges"}

func (v *validator) definition(obj map[string]any) {
	root := []any{"definition"}
	if path, deep := tasks.TooDeep(obj, MaxDefinitionDepth); deep {
		v.unsound = true
		v.add(Error{Type: KindTooDeep, Loc: append(root, path...), Input: "[…]", Ctx: map[string]any{"limit": MaxDefinitionDepth},
			Msg: fmt.Sprintf("The definition nests objects and arrays more than %d levels deep.", MaxDefinitionDepth)})
		return
	}
	v.extraFields(func(k string) []any { return at(root, k) }, obj, definitionFields, nil)

	if raw, ok := obj["version"]; !ok {
		v.add(Error{Type: KindMissing, Loc: at(root, "version"), Msg: "Field \"version\" is required; it must be 1.", Input: obj})
	} else if n, ok := integer(raw); !ok {
		v.add(Error{Type: KindType, Loc: at(root, "version"), Msg: "Field \"version\" must be the integer 1.", Input: raw})
	} else if n != 1 {
		v.add(Error{Type: KindVersion, Loc: at(root, "version"), Msg: "Version must be 1, the only version of the DSL.",
			Input: raw, Ctx: map[string]any{"expected": []any{1}}})
	} else {
		v.def.Version = 1
	}

	taskList, tasksOK := v.array(root, obj, "tasks", MaxTasks, KindTooManyTasks)
	edgeList, edgesOK := v.array(root, obj, "edges", MaxEdges, KindTooManyEdges)
	if !tasksOK || !edgesOK {
		v.unsound = true
	}
	v.tasksKnown = tasksOK
	v.def.Tasks = make([]Task, 0, len(taskList))
	v.types = make([]string, len(taskList))
	for i, t := range taskList {
		v.task(i, t)
	}
	if tasksOK {
		v.checkRefs()
	}
	v.def.Edges = make([]Edge, 0, len(edgeList))
	v.guards = make([]guard, 0, len(edgeList))
	for k, e := range edgeList {
		v.edge(k, e)
	}
	v.graph(len(taskList), edgeList)
}

// array returns the array in field name of obj, reporting a missing field, another type or too many items.
func (v *validator) array(root []any, obj map[string]any, name string, limit int, tooMany string) ([]any, bool) {
	raw, ok := obj[name]
	if !ok {
		v.add(Error{Type: KindMissing, Loc: at(root, name), Msg: fmt.Sprintf("Field %q is required; it is an array.", name), Input: obj})
		return nil, false
	}
	list, ok := raw.([]any)
	if !ok {
		v.add(Error{Type: KindType, Loc: at(root, name), Msg: fmt.Sprintf("Field %q must be an array.", name), Input: raw})
		return nil, false
	}
	if len(list) > limit {
		v.add(Error{Type: tooMany, Loc: at(root, name), Input: fmt.Sprintf("[…%d items]", len(list)),
			Msg: fmt.Sprintf("A definition may have at most %d %s; this one has %d.", limit, name, len(list)),
			Ctx: map[string]any{"limit": limit, "count": len(list)}})
		return nil, false
	}
	return list, true
}

// extraFields reports every field of obj that is neither in known nor in ignored, in sorted order. Counting the
// allowed fields present first makes the common case, no unknown field, a few map lookups.
func (v *validator) extraFields(loc func(k string) []any, obj map[string]any, known, ignored []string) {
	present := 0
	for _, list := range [2][]string{known, ignored} {
		for _, k := range list {
			if _, ok := obj[k]; ok {
				present++
			}
		}
	}
	if present == len(obj) {
		return
	}
	var extra []string
	for k := range obj {
		if !slices.Contains(known, k) && !slices.Contains(ignored, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		v.add(Error{Type: KindExtraForbidden, Loc: loc(k), Input: obj[k],
			Msg: fmt.Sprintf("Unknown field %q; the allowed fields are %s.", k, quoteList(known))})
	}
}

// name checks a task name or an edge end: a string of 1..MaxNameLength characters.
func (v *validator) name(p path, raw any) (string, bool) {
	s, ok := raw.(string)
	if ok && s != "" && len(s) <= MaxNameLength {
		return s, true // fewer bytes than the limit means fewer characters too
	}
	loc := p.loc()
	what := "A task name"
	if p.section == "edges" {
		what = "The " + p.a + " of an edge"
	}
	if !ok {
		v.add(Error{Type: KindType, Loc: loc, Msg: fmt.Sprintf("%s must be a string.", what), Input: raw})
		return "", false
	}
	if s == "" {
		v.add(Error{Type: KindStringTooShort, Loc: loc, Msg: fmt.Sprintf("%s must not be empty.", what), Input: s,
			Ctx: map[string]any{"min_length": 1}})
		return "", false
	}
	if n := utf8.RuneCountInString(s); n > MaxNameLength {
		v.add(Error{Type: KindStringTooLong, Loc: loc, Input: s,
			Msg: fmt.Sprintf("%s must have at most %d characters, not %d.", what, MaxNameLength, n),
			Ctx: map[string]any{"max_length": MaxNameLength}})
		return "", false
	}
	return s, true
}
