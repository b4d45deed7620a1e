package builtin

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A definition as the builder edits it: tasks in order and edges, as the JSON objects they are, so that
// every field the edit does not touch (parameters, retry, descriptions, conditions) is kept as it was.

// copyDefinition is a deep copy of a definition's tasks and edges in the builder's shapes.
func copyDefinition(def map[string]any) (tasks, edges []map[string]any) {
	raw, _ := json.Marshal(def)
	var d struct {
		Tasks []map[string]any `json:"tasks"`
		Edges []map[string]any `json:"edges"`
	}
	_ = json.Unmarshal(raw, &d)
	for _, t := range d.Tasks {
		if t != nil {
			if _, ok := t["parameters"].(map[string]any); !ok {
				t["parameters"] = map[string]any{}
			}
			tasks = append(tasks, t)
		}
	}
	for _, e := range d.Edges {
		if e != nil {
			edges = append(edges, e)
		}
	}
	return tasks, edges
}

// builderFrom seeds a builder with an existing definition: new tasks get names that are not taken.
func builderFrom(def map[string]any) *builder {
	b := newBuilder()
	b.tasks, b.edges = copyDefinition(def)
	for _, t := range b.tasks {
		b.taken(nameOf(t))
	}
	return b
}

var numbered = regexp.MustCompile(`^(.*)_(\d+)$`)

// taken records a name in use, so that name() counts past it.
func (b *builder) taken(name string) {
	base, n := name, 1
	if m := numbered.FindStringSubmatch(name); m != nil {
		base = m[1]
		n, _ = strconv.Atoi(m[2])
	}
	b.names[base] = max(b.names[base], n)
}

func nameOf(t map[string]any) string { s, _ := t["name"].(string); return s }
func typeOf(t map[string]any) string { s, _ := t["type"].(string); return s }
func params(t map[string]any) map[string]any {
	p, _ := t["parameters"].(map[string]any)
	return p
}

// find is the task of that name, nil when there is none.
func (b *builder) find(name string) map[string]any {
	for _, t := range b.tasks {
		if nameOf(t) == name {
			return t
		}
	}
	return nil
}

func (b *builder) index(name string) int {
	return slices.IndexFunc(b.tasks, func(t map[string]any) bool { return nameOf(t) == name })
}

// into and out are the edges into and out of a task.
func (b *builder) into(name string) []map[string]any {
	var out []map[string]any
	for _, e := range b.edges {
		if e["target"] == name {
			out = append(out, e)
		}
	}
	return out
}

func (b *builder) out(name string) []map[string]any {
	var out []map[string]any
	for _, e := range b.edges {
		if e["source"] == name {
			out = append(out, e)
		}
	}
	return out
}

// from turns edges into the edgeFrom the next added task runs after: same sources, conditions, branches.
func from(edges []map[string]any) []edgeFrom {
	var out []edgeFrom
	for _, e := range edges {
		f := edgeFrom{source: e["source"].(string)}
		f.condition, _ = e["condition"].(string)
		if br, ok := e["branch"].(bool); ok {
			f.branch = &br
		}
		out = append(out, f)
	}
	return out
}

// dropEdges removes the edges for which drop holds.
func (b *builder) dropEdges(drop func(e map[string]any) bool) {
	b.edges = slices.DeleteFunc(b.edges, drop)
}

// connect adds an edge from each of b.last to target (a target already reached from a source keeps its edge).
func (b *builder) connect(target string) {
	for _, f := range b.last {
		if slices.ContainsFunc(b.edges, func(e map[string]any) bool {
			return e["source"] == f.source && e["target"] == target && e["branch"] == branchValue(f.branch)
		}) {
			continue
		}
		e := map[string]any{"source": f.source, "target": target}
		if f.condition != "" {
			e["condition"] = f.condition
		}
		if f.branch != nil {
			e["branch"] = *f.branch
		}
		b.edges = append(b.edges, e)
	}
}

func branchValue(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// sinks are the open ends of the flow, in order: what a step appended at the end runs after. They are
// the tasks no edge leaves, and the branches of a condition that lead nowhere ("review when unsure"
// leaves its false branch open: a step after the review runs after a sure answer too).
func (b *builder) sinks() []edgeFrom {
	var out []edgeFrom
	for _, t := range b.tasks {
		name := nameOf(t)
		edges := b.out(name)
		if len(edges) == 0 {
			out = append(out, b.after(name))
			continue
		}
		if typeOf(t) != "condition" {
			continue
		}
		taken := map[bool]bool{}
		for _, e := range edges {
			br, ok := e["branch"].(bool)
			taken[!ok || br] = true
		}
		for _, br := range []bool{true, false} {
			if !taken[br] {
				out = append(out, edgeFrom{source: name, branch: new(br)})
			}
		}
	}
	return out
}

// after is the edge a task following name would come in by: out of a review, only when it approved.
func (b *builder) after(name string) edgeFrom {
	if t := b.find(name); t != nil && typeOf(t) == "human_review" {
		return edgeFrom{source: name, condition: ".review_result"}
	}
	return edgeFrom{source: name}
}

// upstream is the set of tasks a path of edges leads from to name (name excluded).
func (b *builder) upstream(name string) map[string]bool {
	seen := map[string]bool{}
	pending := []string{name}
	for len(pending) > 0 {
		n := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		for _, e := range b.into(n) {
			s := e["source"].(string)
			if !seen[s] {
				seen[s] = true
				pending = append(pending, s)
			}
		}
	}
	return seen
}

// definition is the builder's flow as a definition.
func (b *builder) definition() map[string]any {
	tasks := make([]any, len(b.tasks))
	for i, t := range b.tasks {
		tasks[i] = t
	}
	edges := make([]any, len(b.edges))
	for i, e := range b.edges {
		edges[i] = e
	}
	return map[string]any{"version": 1, "tasks": tasks, "edges": edges}
}

// moveBefore puts the tasks added since index n (at the end of the list) just before the task named
// before, so the list reads in the order the flow runs.
func (b *builder) moveBefore(n int, before string) {
	i := b.index(before)
	if i < 0 || n >= len(b.tasks) || i >= n {
		return
	}
	added := slices.Clone(b.tasks[n:])
	b.tasks = slices.Insert(slices.Delete(b.tasks, n, len(b.tasks)), i, added...)
}

// words of a name, for matching it in a request: "check_confidence" → "check confidence".
func words(name string) string { return strings.ReplaceAll(strings.ToLower(name), "_", " ") }
