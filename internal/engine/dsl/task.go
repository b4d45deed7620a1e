package dsl

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

var (
	taskFields  = []string{"name", "type", "parameters", "retry", "timeout_seconds", "description"}
	replyFields = []string{"dynamic_data", "output_schema"} // added to tasks in replies; accepted back, ignored
	retryFields = []string{"max_attempts", "backoff_seconds"}
)

func (v *validator) task(i int, raw any) {
	p := path{section: "tasks", index: i}
	obj, ok := raw.(map[string]any)
	if !ok {
		v.add(Error{Type: KindType, Loc: p.loc(), Msg: "A task must be a JSON object.", Input: raw})
		v.unsound = true
		return
	}
	v.extraFields(func(k string) []any { return p.loc(k) }, obj, taskFields, replyFields)
	t := Task{Index: i, Retry: Retry{MaxAttempts: 1}}

	if rawName, ok := obj["name"]; !ok {
		v.add(Error{Type: KindMissing, Loc: p.loc("name"), Msg: "Field \"name\" is required.", Input: obj})
		v.unsound = true
	} else if name, ok := v.name(p.with("name"), rawName); !ok {
		v.unsound = true
	} else if first, dup := v.names[name]; dup {
		v.add(Error{Type: KindDuplicateTaskName, Loc: p.loc("name"), Input: name,
			Msg: fmt.Sprintf("Task name %q is already used by task %d; names must be unique.", name, first),
			Ctx: map[string]any{"first_index": first}})
		v.unsound = true
		t.Name = name
	} else {
		v.names[name] = i
		t.Name = name
	}

	known := false
	if rawType, ok := obj["type"]; !ok {
		v.add(Error{Type: KindMissing, Loc: p.loc("type"), Msg: "Field \"type\" is required.", Input: obj})
	} else if typ, ok := rawType.(string); !ok {
		v.add(Error{Type: KindType, Loc: p.loc("type"), Msg: "A task type must be a string.", Input: rawType})
	} else if _, known = v.reg.Lookup(typ); !known {
		v.add(Error{Type: KindUnknownTaskType, Loc: p.loc("type"), Input: typ,
			Msg: fmt.Sprintf("Unknown task type %q; the types are %s.", typ, quoteList(v.reg.Names())),
			Ctx: map[string]any{"expected": v.reg.Names()}})
		t.Type = typ
	} else {
		t.Type = typ
		v.types[i] = typ
	}

	t.Parameters = map[string]any{}
	if rawParams, ok := obj["parameters"]; ok {
		if params, ok := rawParams.(map[string]any); ok {
			t.Parameters = params
		} else {
			v.add(Error{Type: KindType, Loc: p.loc("parameters"), Msg: "Parameters must be a JSON object.", Input: rawParams})
			known = false
		}
	}
	if known {
		v.parameters(p.with("parameters"), t.Type, t.Parameters)
	}

	if rawRetry, ok := obj["retry"]; ok {
		t.Retry = v.retry(p.with("retry"), rawRetry)
	}
	if rawTimeout, ok := obj["timeout_seconds"]; ok && rawTimeout != nil {
		if n, ok := v.bounded(p.with("timeout_seconds"), rawTimeout, "timeout_seconds", 1, MaxTimeoutSeconds); ok {
			t.TimeoutSeconds = &n
		}
	}
	if rawDesc, ok := obj["description"]; ok && rawDesc != nil {
		if s, ok := rawDesc.(string); !ok {
			v.add(Error{Type: KindType, Loc: p.loc("description"), Msg: "A description must be a string.", Input: rawDesc})
		} else if n := utf8.RuneCountInString(s); n > MaxDescriptionLen {
			v.add(Error{Type: KindStringTooLong, Loc: p.loc("description"), Input: s,
				Msg: fmt.Sprintf("A description may have at most %d characters, not %d.", MaxDescriptionLen, n),
				Ctx: map[string]any{"max_length": MaxDescriptionLen}})
		} else {
			t.Description = &s
		}
	}
	v.def.Tasks = append(v.def.Tasks, t)
}

// parameters checks a task's parameters against its type's schema, then compiles its jq expressions,
// templates and JSON schemas and records the task names it refers to.
func (v *validator) parameters(p path, typeName string, params map[string]any) {
	problems := v.reg.CheckParameters(typeName, params)
	bad := map[string]bool{} // top-level parameters with a schema problem: not examined further
	for _, pr := range problems {
		v.add(Error{Type: pr.Type, Loc: p.loc(pr.Loc...), Msg: pr.Msg, Input: pr.Input})
		if len(pr.Loc) > 0 {
			if s, ok := pr.Loc[0].(string); ok {
				bad[s] = true
			}
		} else {
			return
		}
	}
	typ, _ := v.reg.Lookup(typeName)
	for _, f := range typ.JQFields {
		if s, ok := params[f].(string); ok && !bad[f] {
			v.expression(p.with(f), s)
		}
	}
	for _, f := range typ.Templates {
		if !bad[f] {
			v.templates(p.with(f), params[f], 0)
		}
	}
	for _, f := range typ.Schemas {
		if params[f] != nil && !bad[f] {
			for _, pr := range tasks.CheckTenantSchema(params[f]) {
				v.add(Error{Type: pr.Type, Loc: p.loc(append([]any{f}, pr.Loc...)...), Msg: pr.Msg, Input: pr.Input})
			}
		}
	}
	for _, f := range typ.TaskRefs {
		if s, ok := params[f].(string); ok && !bad[f] {
			v.refs = append(v.refs, taskRef{loc: p.loc(f), name: s})
		}
	}
}

// checkRefs reports parameters naming tasks that do not exist; it runs once every task name is known, so a
// reference may point to a task further down the array.
func (v *validator) checkRefs() {
	for _, r := range v.refs {
		if _, ok := v.names[r.name]; !ok {
			v.add(Error{Type: KindUnknownTask, Loc: r.loc, Input: r.name,
				Msg: fmt.Sprintf("There is no task named %q.", r.name)})
		}
	}
}

func (v *validator) retry(p path, raw any) Retry {
	r := Retry{MaxAttempts: 1}
	obj, ok := raw.(map[string]any)
	if !ok {
		v.add(Error{Type: KindType, Loc: p.loc(), Msg: "Retry must be a JSON object.", Input: raw})
		return r
	}
	v.extraFields(func(k string) []any { return p.loc(k) }, obj, retryFields, nil)
	if n, ok := obj["max_attempts"]; ok {
		if m, ok := v.bounded(p.with("max_attempts"), n, "max_attempts", 1, MaxAttempts); ok {
			r.MaxAttempts = m
		}
	}
	if b, ok := obj["backoff_seconds"]; ok {
		f, ok := number(b)
		switch {
		case !ok:
			v.add(Error{Type: KindType, Loc: p.loc("backoff_seconds"), Msg: "backoff_seconds must be a number.", Input: b})
		case f < 0:
			v.add(Error{Type: KindMinimum, Loc: p.loc("backoff_seconds"), Msg: "backoff_seconds must be at least 0.",
				Input: b, Ctx: map[string]any{"minimum": 0}})
		case f > MaxBackoffSeconds:
			v.add(Error{Type: KindMaximum, Loc: p.loc("backoff_seconds"), Input: b,
				Msg: fmt.Sprintf("backoff_seconds must be at most %d.", MaxBackoffSeconds), Ctx: map[string]any{"maximum": MaxBackoffSeconds}})
		default:
			r.BackoffSeconds = f
		}
	}
	return r
}

// bounded reads an integer field within [lo, hi].
func (v *validator) bounded(p path, raw any, field string, lo, hi int) (int, bool) {
	n, ok := integer(raw)
	if ok && n >= lo && n <= hi {
		return n, true
	}
	loc := p.loc()
	switch {
	case !ok:
		v.add(Error{Type: KindType, Loc: loc, Msg: fmt.Sprintf("%s must be an integer.", field), Input: raw})
	case n < lo:
		v.add(Error{Type: KindMinimum, Loc: loc, Msg: fmt.Sprintf("%s must be at least %d.", field, lo),
			Input: raw, Ctx: map[string]any{"minimum": lo}})
	case n > hi:
		v.add(Error{Type: KindMaximum, Loc: loc, Msg: fmt.Sprintf("%s must be at most %d.", field, hi),
			Input: raw, Ctx: map[string]any{"maximum": hi}})
	default:
		return n, true
	}
	return 0, false
}

// templates checks the templates of a template parameter: the string itself, or every string holding
// `{{` inside an object or array (nested at most MaxDepth deep, which the schema check enforced already).
func (v *validator) templates(p path, raw any, depth int) {
	switch x := raw.(type) {
	case string:
		if strings.Contains(x, "{{") { // text without `{{` is a valid template of itself
			v.template(p, x)
		}
	case map[string]any:
		// Only the values that may hold a template are visited, in key order so that problems come in a
		// stable order; headers and bodies without templates cost one pass and no allocation.
		var keys []string
		for k, e := range x {
			switch e := e.(type) {
			case string:
				if !strings.Contains(e, "{{") {
					continue
				}
			case map[string]any, []any:
			default:
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if depth < MaxDepth {
				v.templates(p, x[k], depth+1)
			}
		}
	case []any:
		for _, e := range x {
			if depth < MaxDepth {
				v.templates(p, e, depth+1)
			}
		}
	}
}
