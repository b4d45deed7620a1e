package run

import (
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// plan is a valid flow definition compiled for running: tasks by name, predecessors and successors
// with their compiled edge conditions.
type plan struct {
	// key is the flow version it was compiled from.
	key   planKey
	tasks map[string]*dsl.Task
	// order is the topological order, roots first.
	order []string
	// preds are the distinct predecessors of each task.
	preds map[string][]string
	// succ are the outgoing links of each task, targets in name order so that locks are taken in
	// the same order by every transaction.
	succ map[string][]link
	// needs is, for each task whose expressions or outgoing edge conditions read variables, what its
	// attempts are handed (see varsOf): $tasks read whole stands for every task upstream.
	needs map[string]dsl.Vars
	// long holds the tasks whose program, run ahead of a transaction, took longer than aheadFor and did
	// not complete: they run ahead no more, but after the transaction with the whole of their timeout
	// (see runAhead).
	long sync.Map
}

// runsAhead is whether task may run ahead of a transaction: it has not taken long there before.
func (p *plan) runsAhead(task string) bool {
	_, long := p.long.Load(task)
	return !long
}

// link is a task's dependency on another: every edge between the two, merged. A link holds when
// any of its edges holds.
type link struct {
	target string
	// conds are the conditions of the edges (jq expressions, run in the pool of bounded children); a nil
	// entry is an edge without a condition.
	conds []*string
	// follows are the results of a condition source each edge follows (true for edges out of other tasks).
	follows []bool
	// texts are the conditions as written ("" for none) and branches, to compare links of two versions.
	texts []string
	// vars says whether a condition reads variables, which are then handed to it.
	vars bool
}

func compile(def map[string]any, reg *tasks.Registry) (*plan, error) {
	res := dsl.Validate(def, reg)
	if len(res.Errors) > 0 || res.Definition == nil || res.Order == nil {
		return nil, errors.New("the definition is not valid")
	}
	p := &plan{tasks: map[string]*dsl.Task{}, order: res.Order, preds: map[string][]string{}, succ: map[string][]link{}}
	for i := range res.Definition.Tasks {
		t := &res.Definition.Tasks[i]
		p.tasks[t.Name] = t
	}
	byPair := map[[2]string]*link{}
	for _, e := range res.Definition.Edges {
		k := [2]string{e.Source, e.Target}
		l := byPair[k]
		if l == nil {
			l = &link{target: e.Target}
			byPair[k] = l
			p.preds[e.Target] = append(p.preds[e.Target], e.Source)
		}
		text := ""
		if e.Condition != nil {
			text = *e.Condition
		}
		if !e.Follows() {
			text += "\x00false"
		}
		l.conds = append(l.conds, e.Condition)
		l.follows = append(l.follows, e.Follows())
		l.texts = append(l.texts, text)
		l.vars = l.vars || e.Vars.Any()
	}
	p.needs = needsOf(res.Definition, p)
	for k, l := range byPair {
		p.succ[k[0]] = append(p.succ[k[0]], *l)
	}
	for name := range p.succ {
		s := p.succ[name]
		sort.Slice(s, func(i, j int) bool { return s[i].target < s[j].target })
	}
	return p, nil
}

// roots are the tasks without predecessors, in topological order.
func (p *plan) roots() []string {
	var out []string
	for _, n := range p.order {
		if len(p.preds[n]) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// sinks are the tasks without successors, whose outputs make the execution's output.
func (p *plan) sinks() []string {
	var out []string
	for _, n := range p.order {
		if len(p.succ[n]) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// needsOf is what each task's attempts are handed beyond their input: what its parameters read, and what
// the conditions of the edges out of it read (but the task's own output, which they get as it completes).
// $tasks read whole is every task upstream, named.
func needsOf(def *dsl.Definition, p *plan) map[string]dsl.Vars {
	needs := map[string]dsl.Vars{}
	add := func(task string, read *dsl.Vars, self bool) {
		if !read.Any() {
			return
		}
		v := *read
		n := needs[task]
		if v.AllTasks {
			v = dsl.Vars{Input: v.Input, Tasks: p.upstream(task)}
		}
		if self {
			v.Tasks = slices.DeleteFunc(slices.Clone(v.Tasks), func(s string) bool { return s == task })
		}
		n.Merge(v)
		needs[task] = n
	}
	for _, t := range def.Tasks {
		add(t.Name, t.Vars, false)
	}
	for _, e := range def.Edges {
		add(e.Source, e.Vars, true)
	}
	return needs
}

// upstream are the tasks with a path of edges to task.
func (p *plan) upstream(task string) []string {
	seen := map[string]bool{}
	stack := []string{task}
	var out []string
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, pr := range p.preds[n] {
			if !seen[pr] {
				seen[pr] = true
				out = append(out, pr)
				stack = append(stack, pr)
			}
		}
	}
	sort.Strings(out)
	return out
}

// typeOf is a task's type ("" for a task the plan does not hold).
func (p *plan) typeOf(task string) string {
	if t := p.tasks[task]; t != nil {
		return t.Type
	}
	return ""
}
