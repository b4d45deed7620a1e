package dsl

import (
	"fmt"
	"slices"
	"strings"
)

var edgeFields = []string{"source", "target", "condition", "branch"}

// edge checks one edge. It runs after every task, so that an edge naming a task further down the array is fine.
func (v *validator) edge(k int, raw any) {
	p := path{section: "edges", index: k}
	obj, ok := raw.(map[string]any)
	if !ok {
		v.add(Error{Type: KindType, Loc: p.loc(), Msg: "An edge must be a JSON object.", Input: raw})
		v.unsound = true
		return
	}
	v.extraFields(func(k string) []any { return p.loc(k) }, obj, edgeFields, nil)
	e := Edge{}
	source, from, sourceOK := v.end(p, obj, "source")
	target, to, targetOK := v.end(p, obj, "target")
	e.Source, e.Target = source, target
	if sourceOK && targetOK && source == target {
		v.add(Error{Type: KindSelfLoop, Loc: p.loc(), Input: obj,
			Msg: fmt.Sprintf("Task %q cannot depend on itself.", source)})
		v.unsound = true
	} else if sourceOK && targetOK {
		v.links = append(v.links, link{from: int32(from), to: int32(to), edge: int32(k)})
	}
	if rawCond, ok := obj["condition"]; ok && rawCond != nil {
		if s, ok := rawCond.(string); !ok {
			v.add(Error{Type: KindType, Loc: p.loc("condition"), Input: rawCond,
				Msg: "A condition must be a string holding a jq expression, or null."})
		} else if s == "" {
			v.add(Error{Type: KindStringTooShort, Loc: p.loc("condition"), Input: s,
				Msg: "A condition must not be empty; use null or leave it out for an edge that always holds.",
				Ctx: map[string]any{"min_length": 1}})
		} else if v.expression(p.with("condition"), s) {
			e.Condition = &s
		}
	}
	if rawBranch, ok := obj["branch"]; ok && rawBranch != nil {
		v.branch(p, &e, from, sourceOK, rawBranch)
	}
	if e.Condition != nil && sourceOK && v.types[from] == "condition" && strings.Contains(*e.Condition, ".result") {
		cond := *e.Condition
		v.warn(func() Error {
			return Error{Type: KindResultCondition, Loc: p.loc("condition"), Input: cond, Msg: fmt.Sprintf("A condition task passes its input on and keeps its result on the attempt, so %q sees "+
				"no .result: to follow the false branch set \"branch\": false (true is the default) and drop the "+
				"condition.", cond)}
		})
	}
	if sourceOK && targetOK {
		guarded := obj["condition"] != nil || v.types[from] == "condition"
		v.guards = append(v.guards, guard{edge: int32(k), source: int32(from), target: int32(to), guarded: guarded})
	}
	v.def.Edges = append(v.def.Edges, e)
}

// guard is whether an edge between known tasks is guarded: it has a condition, or its source is a
// condition task, whose result it follows.
type guard struct {
	edge, source, target int32 // indices in the edges and tasks arrays
	guarded              bool
}

// unguarded warns of each unguarded edge into a task that also has a guarded one, from a task that runs
// before the guard is decided (the guarded edge's source, or a task upstream of it): any incoming edge
// that holds starts a task, so the unguarded edge makes it run whatever the guard says. An unguarded edge
// from a task after the guard (the end of a branch joining the other) is what branches are for.
func (v *validator) unguarded(r *reach) {
	// The sources of each target's guarded edges, in one array: those of target t are
	// sources[start[t]:start[t+1]].
	start := make([]int32, len(v.types)+1)
	n := 0
	for _, g := range v.guards {
		if g.guarded {
			start[g.target+1]++
			n++
		}
	}
	if n == 0 {
		return
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sources, fill := make([]int32, n), slices.Clone(start)
	for _, g := range v.guards {
		if g.guarded {
			sources[fill[g.target]] = g.source
			fill[g.target]++
		}
	}
	// Only the short search is asked: a warning is advice, and a source far upstream of the guard (past
	// what the short search visits) is left unwarned rather than paid for in every validation.
	before := func(g guard) bool {
		for _, src := range sources[start[g.target]:start[g.target+1]] {
			if src == g.source {
				return true
			}
			if found, _ := r.near(g.source, src); found {
				return true
			}
		}
		return false
	}
	for _, g := range v.guards {
		if g.guarded || !before(g) {
			continue
		}
		v.warn(func() Error {
			source, target := v.nameAt(g.source), v.nameAt(g.target)
			return Error{Type: KindUnguardedEdge, Loc: []any{"definition", "edges", int(g.edge)},
				Input: map[string]any{"source": source, "target": target},
				Msg: fmt.Sprintf("Task %q runs whenever %q completes, whatever its other incoming edges' conditions "+
					"or branches say: a task starts when any one of its incoming edges holds. To read %q's output "+
					"there, use $tasks.%s instead of this edge; otherwise give the edge a condition.",
					target, source, source, source)}
		})
	}
}

// branch checks an edge's branch: a boolean, on an edge out of a condition task.
func (v *validator) branch(p path, e *Edge, from int, sourceOK bool, raw any) {
	b, ok := raw.(bool)
	if !ok {
		v.add(Error{Type: KindType, Loc: p.loc("branch"), Input: raw,
			Msg: "A branch must be true or false: the result of the source condition that the edge follows."})
		return
	}
	if sourceOK && v.types[from] != "condition" {
		v.add(Error{Type: KindBranchWithoutCondition, Loc: p.loc("branch"), Input: b,
			Msg: fmt.Sprintf("Only an edge out of a condition task has a branch; %q is a %s task. Give the edge a "+
				"condition instead, or leave branch out.", e.Source, v.types[from])})
		return
	}
	e.Branch = &b
}

// end checks the source or target of an edge: a valid name of an existing task.
func (v *validator) end(p path, obj map[string]any, field string) (string, int, bool) {
	raw, ok := obj[field]
	if !ok {
		v.add(Error{Type: KindMissing, Loc: p.loc(field), Msg: fmt.Sprintf("Field %q is required.", field), Input: obj})
		v.unsound = true
		return "", -1, false
	}
	name, ok := v.name(p.with(field), raw)
	if !ok {
		v.unsound = true
		return "", -1, false
	}
	i, ok := v.names[name]
	if !ok {
		if !v.tasksKnown {
			return name, -1, false
		}
		v.add(Error{Type: KindUnknownTask, Loc: p.loc(field), Input: name,
			Msg: fmt.Sprintf("There is no task named %q.", name)})
		v.unsound = true
		return name, -1, false
	}
	return name, i, true
}

// nameAt is the name of the task at index i of the tasks array.
func (v *validator) nameAt(i int32) string {
	if t := v.taskAt(int(i)); t != nil {
		return t.Name
	}
	return ""
}
