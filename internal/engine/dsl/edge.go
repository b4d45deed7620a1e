package dsl

import "fmt"

var edgeFields = []string{"source", "target", "condition"}

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
	source, sourceOK := v.end(p, obj, "source")
	target, targetOK := v.end(p, obj, "target")
	e.Source, e.Target = source, target
	if sourceOK && targetOK && source == target {
		v.add(Error{Type: KindSelfLoop, Loc: p.loc(), Input: obj,
			Msg: fmt.Sprintf("Task %q cannot depend on itself.", source)})
		v.unsound = true
	} else if sourceOK && targetOK {
		v.links = append(v.links, link{from: int32(v.names[source]), to: int32(v.names[target]), edge: int32(k)})
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
	v.def.Edges = append(v.def.Edges, e)
}

// end checks the source or target of an edge: a valid name of an existing task.
func (v *validator) end(p path, obj map[string]any, field string) (string, bool) {
	raw, ok := obj[field]
	if !ok {
		v.add(Error{Type: KindMissing, Loc: p.loc(field), Msg: fmt.Sprintf("Field %q is required.", field), Input: obj})
		v.unsound = true
		return "", false
	}
	name, ok := v.name(p.with(field), raw)
	if !ok {
		v.unsound = true
		return "", false
	}
	if _, ok := v.names[name]; !ok {
		if !v.tasksKnown {
			return name, false
		}
		v.add(Error{Type: KindUnknownTask, Loc: p.loc(field), Input: name,
			Msg: fmt.Sprintf("There is no task named %q.", name)})
		v.unsound = true
		return name, false
	}
	return name, true
}
