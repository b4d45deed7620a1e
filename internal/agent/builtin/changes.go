package builtin

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// diff lists what changed from before to after: tasks added and removed, renamed (renamed maps new
// names to old), moved, and the parameters, retry, timeout and incoming edges of the others.
func diff(before, after map[string]any, renamed map[string]string, moved map[string]bool) []Change {
	old, _ := copyDefinition(before)
	nw, _ := copyDefinition(after)
	ob, nb := &builder{tasks: old}, &builder{tasks: nw}
	ob.edges, nb.edges = edgesOf(before), edgesOf(after)
	var out []Change
	kept := map[string]bool{}
	for _, t := range nw {
		name := nameOf(t)
		was := name
		if r, ok := renamed[name]; ok {
			was = r
		}
		o := ob.find(was)
		if o == nil {
			out = append(out, Change{Op: "added", Task: name, Detail: typeOf(t) + ": " + describe(t) + runsAfter(nb, name)})
			continue
		}
		kept[was] = true
		if was != name {
			out = append(out, Change{Op: "renamed", Task: name, Detail: "renamed from " + was + "."})
		}
		for _, c := range fieldChanges(o, t) {
			out = append(out, Change{Op: "changed", Task: name, Detail: c})
		}
		if ins, outs := incoming(ob, was, renamed), incoming(nb, name, nil); !slices.Equal(ins, outs) {
			op := "changed"
			if moved[name] {
				op = "moved"
			}
			out = append(out, Change{Op: op, Task: name, Detail: "runs after " + orNone(outs) + " (was: " + orNone(ins) + ")."})
		}
	}
	for _, t := range old {
		if !kept[nameOf(t)] {
			out = append(out, Change{Op: "removed", Task: nameOf(t), Detail: typeOf(t) + ": " + describe(t)})
		}
	}
	return out
}

func edgesOf(def map[string]any) []map[string]any {
	_, e := copyDefinition(def)
	return e
}

// incoming describes the edges into a task, sorted, with old names mapped to new ones.
func incoming(b *builder, name string, renamed map[string]string) []string {
	back := map[string]string{}
	for n, o := range renamed {
		back[o] = n
	}
	var out []string
	for _, e := range b.into(name) {
		s := e["source"].(string)
		if n, ok := back[s]; ok {
			s = n
		}
		if br, ok := e["branch"].(bool); ok {
			s += fmt.Sprintf(" (when it is %t)", br)
		}
		if c, ok := e["condition"].(string); ok && c != "" {
			s += " (when `" + c + "`)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func runsAfter(b *builder, name string) string {
	if in := incoming(b, name, nil); len(in) > 0 {
		return " Runs after " + strings.Join(in, ", ") + "."
	}
	return ""
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "nothing: it runs first"
	}
	return strings.Join(s, ", ")
}

// fieldChanges lists the parameters, retry and timeout that differ between two versions of a task.
func fieldChanges(o, t map[string]any) []string {
	var out []string
	op, tp := params(o), params(t)
	keys := map[string]bool{}
	for k := range op {
		keys[k] = true
	}
	for k := range tp {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !reflect.DeepEqual(op[k], tp[k]) {
			out = append(out, k+": "+show(op[k])+" → "+show(tp[k])+".")
		}
	}
	for _, k := range []string{"retry", "timeout_seconds", "type"} {
		if !reflect.DeepEqual(o[k], t[k]) {
			out = append(out, k+": "+show(o[k])+" → "+show(t[k])+".")
		}
	}
	return out
}

// show is a value in short: JSON, at most 80 characters.
func show(v any) string {
	if v == nil {
		return "none"
	}
	raw, _ := json.Marshal(v)
	s := string(raw)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return "`" + s + "`"
}

// describeChanges is the changes in prose, for the proposal's summary.
func describeChanges(changes []Change) string {
	if len(changes) == 0 {
		return "Nothing changes.\n"
	}
	var b strings.Builder
	b.WriteString("What changes:\n\n")
	for _, c := range changes {
		fmt.Fprintf(&b, "- %s **%s**: %s\n", upperFirst(c.Op), c.Task, c.Detail)
	}
	return b.String()
}
