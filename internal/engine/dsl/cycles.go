package dsl

import "slices"

// cycles reports one cycle per strongly connected component of the tasks Kahn's algorithm could not order (those
// left with predecessors, indeg > 0). Every cycle lies within such a component, and each component of more than
// one task holds a cycle; the one reported is a shortest cycle through the component's first task.
func (v *validator) cycles(adj adjacency, indeg []int32, nameOf []string, edges []any) {
	left := func(i int32) bool { return indeg[i] > 0 }
	for _, comp := range components(adj, left) {
		path, firstEdge := shortestCycle(adj, comp)
		names := make([]string, 0, min(len(path), maxCycleNames)+1)
		for _, i := range path[:min(len(path), maxCycleNames)] {
			names = append(names, nameOf[i])
		}
		if len(path) <= maxCycleNames {
			names = append(names, nameOf[path[0]])
		}
		ctx := map[string]any{"tasks": names}
		if len(path) > maxCycleNames {
			ctx["length"] = len(path)
		}
		v.add(Error{Type: KindCycle, Loc: []any{"definition", "edges", int(firstEdge)}, Input: edges[firstEdge],
			Msg: cycleMessage(names, len(path)), Ctx: ctx})
	}
}

// components returns the strongly connected components of more than one task among the tasks in, each sorted by
// task index, ordered by their first task (Tarjan's algorithm, with an explicit stack: a chain of 10,000 tasks
// must not recurse 10,000 deep).
func components(adj adjacency, in func(int32) bool) [][]int32 {
	n := len(adj.start) - 1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var (
		next  int32
		stack []int32
		out   [][]int32
	)
	type frame struct{ node, pos int32 }
	for root := range int32(n) {
		if !in(root) || index[root] >= 0 {
			continue
		}
		calls := []frame{{node: root, pos: adj.start[root]}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.pos < adj.start[f.node+1] {
				w := adj.to[f.pos]
				f.pos++
				switch {
				case !in(w):
				case index[w] < 0:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{node: w, pos: adj.start[w]})
				case onStack[w]:
					low[f.node] = min(low[f.node], index[w])
				}
				continue
			}
			u := f.node
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].node
				low[p] = min(low[p], low[u])
			}
			if low[u] != index[u] {
				continue
			}
			var comp []int32
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == u {
					break
				}
			}
			if len(comp) > 1 {
				slices.Sort(comp)
				out = append(out, comp)
			}
		}
	}
	slices.SortFunc(out, func(a, b []int32) int { return int(a[0] - b[0]) })
	return out
}

// shortestCycle finds, by breadth-first search inside the component, a shortest cycle through its first task.
// It returns the tasks of the cycle from that task on (without repeating it) and the edge leaving it.
func shortestCycle(adj adjacency, comp []int32) ([]int32, int32) {
	start := comp[0]
	inComp := make(map[int32]bool, len(comp))
	for _, i := range comp {
		inComp[i] = true
	}
	parent := map[int32]int32{start: -1}
	queue := []int32{start}
	var last int32 = -1
	for len(queue) > 0 && last < 0 {
		u := queue[0]
		queue = queue[1:]
		succ, _ := adj.next(u)
		for _, w := range succ {
			if w == start {
				last = u
				break
			}
			if _, seen := parent[w]; !seen && inComp[w] {
				parent[w] = u
				queue = append(queue, w)
			}
		}
	}
	var path []int32
	for u := last; u >= 0; u = parent[u] {
		path = append(path, u)
	}
	slices.Reverse(path)
	succ, edge := adj.next(start)
	second := start // only for a self-loop, which is never a link
	if len(path) > 1 {
		second = path[1]
	}
	k, _ := slices.BinarySearch(succ, second)
	return path, edge[k]
}
