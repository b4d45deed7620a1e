package run

import (
	"context"
	"encoding/json"
)

// A new execution's tasks are nobody else's until its start commits, so what the outcomes its first
// tasks ran ahead with (see Prepared) decide can be walked over its layout in memory, with the walk a
// completion takes in the database (walk.finish: counters, tasks made ready, tasks skipped): the start
// then writes the tasks, attempts and count as that walk leaves them, where it wrote them laid out and
// then sent a statement to record the outcomes, one to count and one to queue what they made ready.

// memLayout is a new execution's tasks as the walk leaves them, and the tasks it skipped.
type memLayout struct {
	tasks   map[string]*memTask
	skipped []string
}

// memTask is a row of execution_tasks in memory.
type memTask struct {
	state    string
	waiting  int64
	held     bool
	attempts int
	output   json.RawMessage
}

// laidTask is a task as a start lays it out, waiting on that many predecessors: ready, with its first
// attempt, when it waits on none (start's layout statement writes the same).
func laidTask(waiting int64) memTask {
	if waiting == 0 {
		return memTask{state: "ready", held: true, attempts: 1}
	}
	return memTask{state: "waiting", waiting: waiting}
}

// walkAhead walks the outcomes x's first tasks ran ahead with (l.ahead) over l in memory. It answers nil
// when there are none, when one was decided on another version, or when the walk would leave no task
// (the execution would end in its start: the start then records the outcomes in the database, where
// ending an execution is settled, see inline).
func (e *Engine) walkAhead(ctx context.Context, p *plan, x Execution, l laid) (*memLayout, *walk, error) {
	if len(l.ahead) == 0 {
		return nil, nil, nil
	}
	m := &memLayout{tasks: make(map[string]*memTask, len(l.names))}
	for i, n := range l.names {
		t := laidTask(l.waiting[i])
		m.tasks[n] = &t
	}
	finished := make([]final, len(l.ahead))
	for i, n := range l.ahead {
		o, _ := x.Pre.outcome(x.ID, p.key, n)
		if o.dec == nil || o.dec.key != p.key {
			return nil, nil, nil
		}
		m.tasks[n].state, m.tasks[n].output = "completed", o.output
		finished[i] = final{task: n, completed: true, output: o.output, dec: o.dec}
	}
	w := &walk{e: e, exec: x.ID, p: p, input: x.input(), mem: m}
	if err := w.finish(ctx, finished); err != nil {
		return nil, nil, err
	}
	if w.final >= len(l.names) {
		return nil, nil, nil
	}
	return m, w, nil
}

// count is walk.count over the layout in memory: it lowers the counters of the waiting targets, makes
// ready those whose predecessors all finished with an edge to them holding, and hands walk.made what
// their inputs are made of; it returns the others decided, to be skipped.
func (m *memLayout) count(w *walk, targets []string, ns []int64, hs []bool) ([]string, error) {
	var rows, decided []readyRow
	var skipped []string
	for i, t := range targets {
		k := m.tasks[t]
		if k == nil || k.state != "waiting" {
			continue
		}
		k.waiting -= ns[i]
		k.held = k.held || hs[i]
		if k.waiting > 0 {
			continue
		}
		if k.held {
			k.state = "ready"
			k.attempts++
			names, _ := w.needed([]string{t})
			for _, n := range names {
				if p := m.tasks[n]; p != nil && p.state == "completed" {
					rows = append(rows, readyRow{Name: n, Output: p.output})
				}
			}
		} else {
			skipped = append(skipped, t)
		}
		decided = append(decided, readyRow{Name: t, Output: json.RawMessage("null"), Kind: 2, Attempts: k.attempts, Held: k.held})
	}
	return skipped, w.made(append(rows, decided...))
}

// skip is walk.skip over the layout in memory.
func (m *memLayout) skip(tasks []string) {
	for _, t := range tasks {
		if k := m.tasks[t]; k != nil && k.state == "waiting" {
			k.state = "skipped"
			m.skipped = append(m.skipped, t)
		}
	}
}
