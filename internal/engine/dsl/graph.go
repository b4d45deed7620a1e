package dsl

import (
	"fmt"
	"slices"
	"strings"
)

// link is an edge between two known tasks, by task index, with the index of the edge in the edges array.
type link struct{ from, to, edge int32 }

// maxCycleNames bounds the names an error repeats for one cycle; a cycle through 10,000 tasks is reported with
// its first names and its length.
const maxCycleNames = 100

// adjacency is the graph in compressed form: the successors of task i are to[start[i]:start[i+1]], sorted by
// index, each pair once, with the first edge that links them.
type adjacency struct {
	start    []int32
	to, edge []int32
}

func newAdjacency(n int, links []link) adjacency {
	a := adjacency{start: make([]int32, n+1)}
	for _, l := range links {
		a.start[l.from+1]++
	}
	for i := 1; i <= n; i++ {
		a.start[i] += a.start[i-1]
	}
	sorted := make([]link, len(links))
	fill := slices.Clone(a.start[:n])
	for _, l := range links {
		sorted[fill[l.from]] = l
		fill[l.from]++
	}
	// Sort each task's successors, then drop repeated pairs, keeping the first edge of each.
	a.to, a.edge = make([]int32, 0, len(links)), make([]int32, 0, len(links))
	for i := 0; i < n; i++ {
		seg := sorted[a.start[i]:a.start[i+1]]
		slices.SortFunc(seg, func(x, y link) int {
			if x.to != y.to {
				return int(x.to - y.to)
			}
			return int(x.edge - y.edge)
		})
		a.start[i] = int32(len(a.to))
		for j, l := range seg {
			if j > 0 && seg[j-1].to == l.to {
				continue
			}
			a.to, a.edge = append(a.to, l.to), append(a.edge, l.edge)
		}
	}
	a.start[n] = int32(len(a.to))
	return a
}

func (a adjacency) next(i int32) ([]int32, []int32) {
	return a.to[a.start[i]:a.start[i+1]], a.edge[a.start[i]:a.start[i+1]]
}

// graph orders the tasks (Kahn's algorithm; among the tasks ready at once, the one earlier in the tasks array
// goes first) and reports every cycle.
func (v *validator) graph(n int, edges []any) {
	node := make([]bool, n) // tasks with a valid first-occurrence name take part
	nameOf := make([]string, n)
	for name, i := range v.names {
		node[i] = true
		nameOf[i] = name
	}
	nodes := len(v.names)
	adj := newAdjacency(n, v.links)
	indeg := make([]int32, n)
	for _, t := range adj.to {
		indeg[t]++
	}
	ready := make(minHeap, 0, n)
	for i := range n {
		if node[i] && indeg[i] == 0 {
			ready = append(ready, int32(i)) // ascending: already a heap
		}
	}
	order := make([]string, 0, nodes)
	for len(ready) > 0 {
		i := ready.pop()
		order = append(order, nameOf[i])
		succ, _ := adj.next(i)
		for _, t := range succ {
			if indeg[t]--; indeg[t] == 0 {
				ready.push(t)
			}
		}
	}
	if len(order) < nodes {
		v.unsound = true
		v.cycles(adj, indeg, nameOf, edges)
	}
	if v.unsound {
		v.checkUses(nil)
		return
	}
	v.order = order
	pos := make([]int32, n)
	for k, name := range order {
		pos[v.names[name]] = int32(k)
	}
	r := newReach(adj, pos)
	v.checkUses(r)
	v.unguarded(r)
}

// minHeap is a binary min-heap of task indices.
type minHeap []int32

func (h *minHeap) push(x int32) {
	*h = append(*h, x)
	s := *h
	for c := len(s) - 1; c > 0; {
		p := (c - 1) / 2
		if s[p] <= s[c] {
			break
		}
		s[p], s[c] = s[c], s[p]
		c = p
	}
}

func (h *minHeap) pop() int32 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s[c+1] < s[c] {
			c++
		}
		if s[p] <= s[c] {
			break
		}
		s[p], s[c] = s[c], s[p]
		p = c
	}
	*h = s
	return top
}

// cycleMessage describes a cycle by its task names, shortened for very long cycles.
func cycleMessage(names []string, length int) string {
	s := strings.Join(names, " → ")
	if length > len(names)-1 {
		s += fmt.Sprintf(" → … (%d tasks)", length)
	}
	return "These tasks form a cycle, so none of them could ever start: " + s + "."
}
