package builtin

import (
	"regexp"
	"slices"
	"strings"
)

// move puts a task before or after another (or first or last), reconnecting where it was.
func (e *editor) move(clause, l string) bool {
	if m := swapRe.FindStringSubmatch(clause); m != nil {
		x, y := e.one(strings.ToLower(m[1]), "task"), e.one(strings.ToLower(m[2]), "task")
		if e.question != "" {
			return true
		}
		if x == "" || y == "" || x == y {
			return e.none("two such tasks")
		}
		if e.b.index(x) < e.b.index(y) {
			e.b.place(x, "after", y)
		} else {
			e.b.place(x, "before", y)
		}
		e.moved[x], e.moved[y] = true, true
		e.b.unreachable()
		return true
	}
	m := moveRe.FindStringSubmatch(clause)
	if m == nil {
		return false
	}
	x := e.one(strings.ToLower(m[1]), "task")
	if x == "" {
		return e.question != "" || e.none(orDefault(mentions(strings.ToLower(m[1])), "such task"))
	}
	where, anchor := strings.ToLower(m[2]), ""
	if where == "before" || where == "after" {
		if anchor = e.one(strings.ToLower(m[3]), "task"); anchor == "" || anchor == x {
			return e.question != "" || e.none(orDefault(mentions(strings.ToLower(m[3])), "such task"))
		}
	}
	e.b.place(x, where, anchor)
	e.moved[x] = true
	e.b.unreachable()
	return true
}

// unreachable drops the $tasks references a move left pointing at tasks that no longer run before the
// task that reads them: ($tasks.r // $tasks.d) reads d, any other such reference reads null.
func (b *builder) unreachable() {
	alt := regexp.MustCompile(`\(\$tasks\.([A-Za-z0-9_]+)\s*//\s*(\$tasks\.[A-Za-z0-9_]+)\)`)
	for _, t := range b.tasks {
		up := b.upstream(nameOf(t))
		t["parameters"] = replaceStrings(params(t), func(s string) string {
			s = alt.ReplaceAllStringFunc(s, func(m string) string {
				if sub := alt.FindStringSubmatch(m); !up[sub[1]] {
					return sub[2]
				}
				return m
			})
			return tasksRef.ReplaceAllStringFunc(s, func(m string) string {
				if !up[m[len("$tasks."):]] {
					return "null"
				}
				return m
			})
		})
	}
}

// place detaches a task and inserts it before or after anchor, or first or last.
func (b *builder) place(x, where, anchor string) {
	b.detach(x)
	t := b.find(x)
	b.tasks = slices.DeleteFunc(b.tasks, func(u map[string]any) bool { return nameOf(u) == x })
	switch {
	case where == "before":
		b.last = from(b.into(anchor))
		b.dropEdges(func(e map[string]any) bool { return e["target"] == anchor })
		b.connect(x)
		b.last = []edgeFrom{b.after(x)}
		b.connect(anchor)
		b.tasks = slices.Insert(b.tasks, b.index(anchor), t)
	case where == "after":
		outs := b.out(anchor)
		b.dropEdges(func(e map[string]any) bool { return e["source"] == anchor })
		b.last = []edgeFrom{b.after(anchor)}
		b.connect(x)
		for _, o := range outs {
			b.last = []edgeFrom{b.after(x)}
			b.connect(o["target"].(string))
		}
		b.tasks = slices.Insert(b.tasks, b.index(anchor)+1, t)
	case where == "first" || strings.Contains(where, "start") || strings.Contains(where, "beginning"):
		roots := b.roots()
		b.tasks = slices.Insert(b.tasks, 0, t)
		for _, r := range roots {
			b.last = []edgeFrom{b.after(x)}
			b.connect(r)
		}
	default:
		b.last = b.sinks()
		b.tasks = append(b.tasks, t)
		b.connect(x)
	}
	b.last = nil
}

// roots are the tasks no edge leads into.
func (b *builder) roots() []string {
	var out []string
	for _, t := range b.tasks {
		if len(b.into(nameOf(t))) == 0 {
			out = append(out, nameOf(t))
		}
	}
	return out
}
