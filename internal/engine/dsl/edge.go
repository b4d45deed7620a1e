package dsl

import (
	"fmt"
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
