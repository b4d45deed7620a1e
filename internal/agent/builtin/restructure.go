package builtin

import (
	"regexp"
	"slices"
	"strings"
)

var (
	renameRe = regexp.MustCompile(`(?i)^(?:please\s+)?(?:rename|call)\s+(?:the\s+)?(.+?)\s+(?:step\s+|task\s+)?(?:to|as)?\s*["'\x60]?([A-Za-z][A-Za-z0-9_ -]*?)["'\x60]?\s*$`)
	removeRe = regexp.MustCompile(`(?i)^(?:please\s+)?(?:remove|delete|drop|skip|take out|get rid of|leave out|no longer|don'?t|do not|no)\s+(.+)$`)
	moveRe   = regexp.MustCompile(`(?i)^(?:please\s+)?(?:move|put|do|run)\s+(?:the\s+)?(.+?)\s+(before|after|first|last|(?:at|to) the (?:start|end|beginning))\b\s*(.*)$`)
	swapRe   = regexp.MustCompile(`(?i)^(?:please\s+)?swap\s+(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+)$`)
)

// rename gives a task a new name everywhere: edges, review_of and every $tasks reference.
func (e *editor) rename(clause, l string) bool {
	m := renameRe.FindStringSubmatch(clause)
	if m == nil {
		return false
	}
	old := e.one(strings.ToLower(m[1]), "task")
	if old == "" && e.question == "" {
		return e.none("task called " + m[1])
	}
	if old == "" {
		return true
	}
	name := fieldName(m[2])
	if e.b.find(name) != nil && name != old {
		e.question = "There is already a task named " + name + "; which name should " + old + " have instead?"
		return true
	}
	e.b.find(old)["name"] = name
	for _, x := range e.b.edges {
		for _, end := range []string{"source", "target"} {
			if x[end] == old {
				x[end] = name
			}
		}
	}
	for _, t := range e.b.tasks {
		if params(t)["review_of"] == old {
			params(t)["review_of"] = name
		}
	}
	e.b.rewriteRefs(func(n string) string {
		if n == old {
			n = name
		}
		return "$tasks." + n
	})
	first := old
	if was, ok := e.renamed[old]; ok {
		first = was
		delete(e.renamed, old)
	}
	e.renamed[name] = first
	return true
}

// remove takes a task out; what ran before it leads to what ran after it, and a condition left with
// nothing to decide goes too.
func (e *editor) remove(clause, l string) bool {
	m := removeRe.FindStringSubmatch(clause)
	if m == nil || has(l, "retr", "time out", "timeout") {
		return false
	}
	names := e.b.refer(strings.ToLower(m[1]))
	if len(names) == 0 {
		return e.none(orDefault(mentions(strings.ToLower(m[1])), "such task"))
	}
	if len(names) > 1 && !has(l, " all ", "every", "both") {
		e.ask("task", names)
		return true
	}
	for _, n := range names {
		e.b.cut(n)
	}
	return true
}

// cut removes a task and reconnects around it.
func (b *builder) cut(name string) {
	b.detach(name)
	b.tasks = slices.DeleteFunc(b.tasks, func(t map[string]any) bool { return nameOf(t) == name })
	for _, t := range b.tasks {
		if params(t)["review_of"] == name {
			delete(params(t), "review_of")
		}
	}
	// A removed review's corrections are no longer there: read what it reviewed.
	alt := regexp.MustCompile(`\(\$tasks\.` + regexp.QuoteMeta(name) + `\s*//\s*(\$tasks\.[A-Za-z0-9_]+)\)`)
	for _, t := range b.tasks {
		t["parameters"] = replaceStrings(params(t), func(s string) string { return alt.ReplaceAllString(s, "$1") })
	}
	b.rewriteRefs(func(n string) string {
		if n == name {
			return "null"
		}
		return "$tasks." + n
	})
	for _, t := range slices.Clone(b.tasks) {
		if typeOf(t) == "condition" && b.idle(nameOf(t)) {
			b.cut(nameOf(t))
		}
	}
}

// detach takes a task out of the edges: each edge into it leads to each task it led to.
func (b *builder) detach(name string) {
	in, out := b.into(name), b.out(name)
	b.dropEdges(func(x map[string]any) bool { return x["source"] == name || x["target"] == name })
	for _, o := range out {
		b.last = from(in)
		b.connect(o["target"].(string))
	}
	b.last = nil
}

// idle says whether a condition decides nothing any more: no edge leaves it, or every edge out of it
// goes to the same task whatever it decides.
func (b *builder) idle(name string) bool {
	out := b.out(name)
	if len(out) == 0 {
		return true
	}
	targets := map[any]bool{}
	branches := map[any]bool{}
	for _, x := range out {
		if _, ok := x["condition"]; ok {
			return false
		}
		targets[x["target"]] = true
		br, ok := x["branch"].(bool)
		branches[!ok || br] = true
	}
	return len(targets) == 1 && len(branches) == 2
}

func replaceStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		return f(v)
	case map[string]any:
		for k, x := range v {
			v[k] = replaceStrings(x, f)
		}
	case []any:
		for i, x := range v {
			v[i] = replaceStrings(x, f)
		}
	}
	return v
}
