package dsl

import (
	"fmt"
	"slices"
	"testing"
)

// checkOrder asserts what an order promises: a permutation of the task names in which every edge points forward.
func checkOrder(t *testing.T, r Result) {
	t.Helper()
	if r.Order == nil {
		if len(r.Errors) == 0 {
			t.Fatal("no order and no error")
		}
		return
	}
	pos := make(map[string]int, len(r.Order))
	for i, n := range r.Order {
		pos[n] = i
	}
	if len(pos) != len(r.Order) || len(r.Order) != len(r.Definition.Tasks) {
		t.Fatalf("order %v is not a permutation of %d tasks", r.Order, len(r.Definition.Tasks))
	}
	for _, task := range r.Definition.Tasks {
		if _, ok := pos[task.Name]; !ok {
			t.Fatalf("task %q missing from the order", task.Name)
		}
	}
	for _, e := range r.Definition.Edges {
		if pos[e.Source] >= pos[e.Target] {
			t.Fatalf("edge %s→%s points backwards in %v", e.Source, e.Target, r.Order)
		}
	}
}

// FuzzValidateJSON: no body makes the validator panic; an order is always a sound one; every problem has
// a loc into the body; a valid definition written back canonically is valid and the same.
func FuzzValidateJSON(f *testing.F) {
	for _, seed := range []string{example, def(ta+`,`+tb+`,`+tc, `{"source": "a", "target": "b"}, {"source": "b", "target": "a"}`),
		`{}`, `[]`, `null`, `{"version": 1, "tasks": [{}], "edges": [{}]}`, nested(50, "1"),
		def(`{"name": "a", "type": "llm", "parameters": {"prompt": "{{ .x }}"}}`, `{"source": "a", "target": "a", "condition": "."}`)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r := ValidateJSON(raw, reg)
		checkOrder(t, r)
		checkLocs(t, raw, r)
		checkCanonical(t, r)
	})
}

// FuzzGraph builds definitions from bytes: task names (some repeated or empty) and edges (some dangling, some
// self-loops, some closing cycles), and compares the validator with a plain reference: an order exactly when the
// graph is sound, and then the one Kahn's algorithm with ties broken by array position gives.
func FuzzGraph(f *testing.F) {
	f.Add([]byte{5, 0, 1, 1, 2, 2, 3, 3, 4})
	f.Add([]byte{3, 0, 1, 1, 2, 2, 0})
	f.Add([]byte{4, 200, 0, 3, 3, 1, 2})
	f.Add([]byte{8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]%24) + 1
		data = data[1:]
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprint("t", i)
			if i < len(data) && data[i] >= 250 { // a few duplicates and empty names
				names[i] = []string{"", "t0", "t1", "", "t2", "t3"}[data[i]-250]
			}
		}
		taskList := make([]any, n)
		for i, name := range names {
			taskList[i] = map[string]any{"name": name, "type": "delay", "parameters": map[string]any{"seconds": 1.0}}
		}
		type pair struct{ s, t int } // -1: a name no task has
		var pairs []pair
		edgeList := []any{}
		for i := 0; i+1 < len(data) && len(pairs) < 64; i += 2 {
			s, d := int(data[i])%(n+1), int(data[i+1])%(n+1) // n stands for a name no task has
			name := func(x int) string {
				if x == n {
					return "missing"
				}
				return names[x]
			}
			edgeList = append(edgeList, map[string]any{"source": name(s), "target": name(d)})
			known := func(x int) int {
				if x == n {
					return -1
				}
				return x
			}
			pairs = append(pairs, pair{known(s), known(d)})
		}
		r := Validate(map[string]any{"version": 1.0, "tasks": taskList, "edges": edgeList}, reg)

		// The reference: sound means unique non-empty names, known ends, no self-loop, no cycle.
		sound := true
		seen := map[string]bool{}
		for _, name := range names {
			if name == "" || seen[name] {
				sound = false
			}
			seen[name] = true
		}
		indeg := make([]int, n)
		succ := make([][]int, n)
		for _, p := range pairs {
			if p.s < 0 || p.t < 0 || p.s == p.t {
				sound = false
				continue
			}
			if !slices.Contains(succ[p.s], p.t) {
				succ[p.s] = append(succ[p.s], p.t)
				indeg[p.t]++
			}
		}
		var order []string
		done := make([]bool, n)
		for range n {
			next := -1
			for i := range n {
				if !done[i] && indeg[i] == 0 {
					next = i
					break
				}
			}
			if next < 0 {
				sound = false // a cycle
				break
			}
			done[next] = true
			order = append(order, names[next])
			for _, s := range succ[next] {
				indeg[s]--
			}
		}
		if !sound {
			if r.Order != nil {
				t.Fatalf("unsound graph %v %v has order %v", names, pairs, r.Order)
			}
			if len(r.Errors) == 0 {
				t.Fatalf("unsound graph %v %v has no error", names, pairs)
			}
			return
		}
		if !slices.Equal(r.Order, order) {
			t.Fatalf("order %v, reference %v (errors %+v)", r.Order, order, r.Errors)
		}
		checkOrder(t, r)
	})
}
