package dsl

import (
	"fmt"
	"slices"
)

// use is an expression that reads variables, where it sits.
type use struct {
	p    path
	vars Vars
}

// use records what a compiled expression at p reads, to check its task names once the graph is known.
func (v *validator) use(p path, expr string) {
	if vars := varsOf(expr); vars.Any() {
		v.uses = append(v.uses, use{p: p, vars: vars})
	}
}

// reach answers whether one task runs before another: a path of edges leads from it to the other.
type reach struct {
	adj adjacency
	pos []int32 // topological position by task index
	// stamp marks the tasks one search has visited (those equal to gen), so that a search allocates nothing.
	stamp []uint32
	gen   uint32
	stack []int32 // the search's own, kept between searches
	// below caches, for tasks whose short search did not settle a question, every task reachable from them
	// as a bitset.
	below map[int32][]uint64
}

func newReach(adj adjacency, pos []int32) *reach {
	return &reach{adj: adj, pos: pos, stamp: make([]uint32, len(pos)), below: map[int32][]uint64{}}
}

// shortSearch bounds the tasks one search visits before upstream falls back to the cached bitset.
const shortSearch = 32

// upstream is whether a path of edges leads from task from to task to. A task later in the order cannot be
// upstream; a short search, over tasks before to in the order only, settles the usual questions (a near
// predecessor, a task upstream of a condition) in a few steps; a question it does not settle is answered
// from every task reachable from from, computed once per task. So a definition of 10,000 tasks that all
// read the first task's output costs one walk of the graph, not one per task.
func (r *reach) upstream(from, to int32) bool {
	found, settled := r.near(from, to)
	if settled {
		return found
	}
	set, ok := r.below[from]
	if !ok {
		set = r.descendants(from)
		r.below[from] = set
	}
	return set[to/64]&(1<<(to%64)) != 0
}

// near is the short search of upstream: whether a path leads from task from to task to, and whether
// the search settled it within shortSearch tasks.
func (r *reach) near(from, to int32) (found, settled bool) {
	if r.pos[from] >= r.pos[to] {
		return false, true
	}
	if set, ok := r.below[from]; ok {
		return set[to/64]&(1<<(to%64)) != 0, true
	}
	r.gen++
	r.stamp[from] = r.gen
	stack := append(r.stack[:0], from)
	defer func() { r.stack = stack[:0] }()
	for visited := 0; len(stack) > 0; visited++ {
		if visited == shortSearch {
			return false, false
		}
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		succ, _ := r.adj.next(i)
		for _, s := range succ {
			if s == to {
				return true, true
			}
			if r.stamp[s] != r.gen && r.pos[s] < r.pos[to] {
				r.stamp[s] = r.gen
				stack = append(stack, s)
			}
		}
	}
	return false, true
}

// descendants is the set of tasks reachable from task from.
func (r *reach) descendants(from int32) []uint64 {
	set := make([]uint64, (len(r.pos)+63)/64)
	stack := []int32{from}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		succ, _ := r.adj.next(i)
		for _, s := range succ {
			if set[s/64]&(1<<(s%64)) == 0 {
				set[s/64] |= 1 << (s % 64)
				stack = append(stack, s)
			}
		}
	}
	return set
}

// checkUses reports `$tasks.name` naming no task, or (when the graph is sound, r non-nil) a task that does
// not run before the expression's task, and gives each task and edge what it reads. An edge condition runs
// on its source's output once the source completed: it may read the source and the tasks before it.
func (v *validator) checkUses(r *reach) {
	for _, u := range v.uses {
		owner, self := v.ownerOf(u.p)
		for _, name := range u.vars.Tasks {
			ref, known := v.names[name]
			switch {
			case !known && v.tasksKnown:
				v.add(Error{Type: KindUnknownTask, Loc: u.p.loc(), Input: "$tasks." + name,
					Msg: fmt.Sprintf("$tasks.%s names no task of the flow.", name)})
			case !known || owner < 0 || r == nil || (self && ref == owner):
			case !r.upstream(int32(ref), int32(owner)):
				v.add(Error{Type: KindNotUpstream, Loc: u.p.loc(), Input: "$tasks." + name,
					Ctx: map[string]any{"task": name},
					Msg: fmt.Sprintf("$tasks.%s reads task %q, which does not run before %s: no path of edges leads "+
						"from it here, so its output is never there to read.", name, name, v.ownerName(u.p))})
			}
		}
		switch u.p.section {
		case "tasks":
			if t := v.taskAt(u.p.index); t != nil {
				t.Vars = merged(t.Vars, u.vars)
			}
		case "edges":
			if u.p.index < len(v.def.Edges) {
				v.def.Edges[u.p.index].Vars = merged(v.def.Edges[u.p.index].Vars, u.vars)
			}
		}
	}
}

// ownerOf is the index of the task whose expression sits at p (-1 when unknown): the task itself, or an
// edge's source, which self reports, as an edge condition may read its source.
func (v *validator) ownerOf(p path) (owner int, self bool) {
	name := ""
	switch p.section {
	case "tasks":
		if t := v.taskAt(p.index); t != nil {
			name = t.Name
		}
	case "edges":
		if p.index < len(v.def.Edges) {
			name, self = v.def.Edges[p.index].Source, true
		}
	}
	if i, ok := v.names[name]; ok && name != "" {
		return i, self
	}
	return -1, self
}

// ownerName says where an expression sits, for messages.
func (v *validator) ownerName(p path) string {
	if p.section == "edges" && p.index < len(v.def.Edges) {
		e := v.def.Edges[p.index]
		return fmt.Sprintf("the edge %s → %s", e.Source, e.Target)
	}
	owner, _ := v.ownerOf(p)
	for name, i := range v.names {
		if i == owner {
			return fmt.Sprintf("task %q", name)
		}
	}
	return "this task"
}

// taskAt is the parsed task at index i of the tasks array (nil when that item was not an object). Items
// that are not objects are left out of Definition.Tasks, so the task may sit before position i.
func (v *validator) taskAt(i int) *Task {
	if i < len(v.def.Tasks) && v.def.Tasks[i].Index == i {
		return &v.def.Tasks[i]
	}
	if k, ok := slices.BinarySearchFunc(v.def.Tasks, i, func(t Task, i int) int { return t.Index - i }); ok {
		return &v.def.Tasks[k]
	}
	return nil
}

// merged is what to and v read together.
func merged(to *Vars, v Vars) *Vars {
	if to == nil {
		to = &Vars{}
	}
	to.Merge(v)
	return to
}
