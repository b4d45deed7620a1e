package dsl

import (
	"fmt"
	"slices"
)

// warn records a warning, built only while fewer than MaxWarnings are recorded: a definition of
// thousands of the same slip must cost neither the reply's size nor the messages' making.
func (v *validator) warn(build func() Error) {
	if len(v.warnings) >= MaxWarnings {
		v.warningsLeft++
		return
	}
	v.warnings = append(v.warnings, build())
}

// allWarnings are the warnings, the last saying how many more there were.
func (v *validator) allWarnings() []Error {
	if v.warningsLeft == 0 {
		return v.warnings
	}
	return append(v.warnings, Error{Type: KindTooManyWarnings, Loc: []any{"definition"},
		Msg: fmt.Sprintf("%d more warnings were found and are not listed.", v.warningsLeft),
		Ctx: map[string]any{"omitted": v.warningsLeft}})
}

// guard is whether an edge between known tasks is guarded: it has a condition, or its source is a
// condition task, whose result it follows.
type guard struct {
	edge, source, target int32 // indices in the edges and tasks arrays
	guarded              bool
}

// unguarded warns of each unguarded edge into a task that also has a guarded one, from a task that runs
// before the guard is decided (the guarded edge's source, or a task upstream of it): any incoming edge
// that holds starts a task, so the unguarded edge makes it run whatever the guard says. An unguarded edge
// from a task after the guard (the end of a branch joining the other) is what branches are for.
func (v *validator) unguarded(r *reach) {
	// The sources of each target's guarded edges, in one array: those of target t are
	// sources[start[t]:start[t+1]].
	start := make([]int32, len(v.types)+1)
	n := 0
	for _, g := range v.guards {
		if g.guarded {
			start[g.target+1]++
			n++
		}
	}
	if n == 0 {
		return
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sources, fill := make([]int32, n), slices.Clone(start)
	for _, g := range v.guards {
		if g.guarded {
			sources[fill[g.target]] = g.source
			fill[g.target]++
		}
	}
	// Only the short search is asked: a warning is advice, and a source far upstream of the guard (past
	// what the short search visits) is left unwarned rather than paid for in every validation.
	before := func(g guard) bool {
		for _, src := range sources[start[g.target]:start[g.target+1]] {
			if src == g.source {
				return true
			}
			if found, _ := r.near(g.source, src); found {
				return true
			}
		}
		return false
	}
	for _, g := range v.guards {
		if g.guarded || !before(g) {
			continue
		}
		v.warn(func() Error {
			source, target := v.nameAt(g.source), v.nameAt(g.target)
			return Error{Type: KindUnguardedEdge, Loc: []any{"definition", "edges", int(g.edge)},
				Input: map[string]any{"source": source, "target": target},
				Msg: fmt.Sprintf("Task %q runs whenever %q completes, whatever its other incoming edges' conditions "+
					"or branches say: a task starts when any one of its incoming edges holds. To read %q's output "+
					"there, use $tasks.%s instead of this edge; otherwise give the edge a condition.",
					target, source, source, source)}
		})
	}
}

// nameAt is the name of the task at index i of the tasks array.
func (v *validator) nameAt(i int32) string {
	if t := v.taskAt(int(i)); t != nil {
		return t.Name
	}
	return ""
}
