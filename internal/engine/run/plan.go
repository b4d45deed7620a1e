package run

import (
	"errors"
	"sort"

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
}

// link is a task's dependency on another: every edge between the two, merged. A link holds when
// any of its edges holds.
type link struct {
	target string
	// conds are the conditions of the edges (jq expressions, run in the pool of bounded children); a nil
	// entry is an edge without a condition.
	conds []*string
	// texts are the conditions as written ("" for none), to compare links of two versions.
	texts []string
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
		l.conds = append(l.conds, e.Condition)
		l.texts = append(l.texts, text)
	}
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
