package builtin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// TestEditsKeepWhatTheyDoNotTouch: for every edit and rejection of the corpus, each task its changes do
// not name is exactly as it was (parameters, retry, timeout, description), and each edge between such
// tasks is still there.
func TestEditsKeepWhatTheyDoNotTouch(t *testing.T) {
	for _, ex := range corpus(t) {
		if len(ex.Edits) == 0 && ex.Reject == "" || ex.Asks {
			continue
		}
		base := ex
		if ex.Reject != "" {
			base.Reject = ""
		} else {
			base.Edits = ex.Edits[:len(ex.Edits)-1]
		}
		before, after := base.propose(), ex.propose()
		touched := map[string]bool{}
		for _, c := range after.Changes {
			touched[c.Task] = true
			if c.Op == "renamed" {
				touched[strings.TrimSuffix(strings.TrimPrefix(c.Detail, "renamed from "), ".")] = true
			}
		}
		old, oldEdges := copyDefinition(before.Definition)
		nw, newEdges := copyDefinition(after.Definition)
		ob := &builder{tasks: old}
		for _, task := range nw {
			if touched[nameOf(task)] {
				continue
			}
			was := ob.find(nameOf(task))
			if was == nil || !reflect.DeepEqual(was, task) {
				t.Errorf("%q %q: %s changed without being listed:\n%v\n%v", ex.Request, ex.Edits, nameOf(task), was, task)
			}
		}
		for _, e := range oldEdges {
			if touched[e["source"].(string)] || touched[e["target"].(string)] {
				continue
			}
			if !slices.ContainsFunc(newEdges, func(n map[string]any) bool { return reflect.DeepEqual(n, e) }) {
				t.Errorf("%q %q: the edge %v is gone", ex.Request, ex.Edits, e)
			}
		}
	}
}

// TestEveryEditOnEveryFlow applies every edit phrase of the corpus to every flow the corpus proposes:
// whatever the pairing, the agent either asks or declines (nothing changes), or proposes a definition the
// validator accepts; it never panics and never proposes one with errors.
func TestEveryEditOnEveryFlow(t *testing.T) {
	reg := tasks.Builtin()
	examples := corpus(t)
	var phrases []string
	for _, ex := range examples {
		phrases = append(phrases, ex.Edits...)
		if ex.Reject != "" {
			phrases = append(phrases, ex.Reject)
		}
	}
	proposed, understood := 0, 0
	for _, ex := range examples {
		base := Propose(ex.Request).Definition
		for _, phrase := range phrases {
			p := Edit(base, phrase)
			proposed++
			if !p.Understood {
				if !reflect.DeepEqual(p.Definition, base) {
					t.Errorf("%q on %q: not understood, yet the definition changed", phrase, ex.Request)
				}
				continue
			}
			understood++
			raw, _ := json.Marshal(p.Definition)
			if res := dsl.ValidateJSON(raw, reg); len(res.Errors) > 0 {
				t.Errorf("%q on %q: %+v\n%s", phrase, ex.Request, res.Errors[0], raw)
			}
		}
	}
	t.Logf("%d edits, %d understood", proposed, understood)
}

// TestEditBoundsLargeFlows: a definition past the editor's bound (a tenant's workflow_state may hold
// thousands of tasks) is declined at once, naming the route that changes it, instead of edited in time
// that grows with the square of its size; one at the bound is edited.
func TestEditBoundsLargeFlows(t *testing.T) {
	chain := func(n int) map[string]any {
		var tasks, edges []any
		for i := 0; i < n; i++ {
			tasks = append(tasks, map[string]any{"name": fmt.Sprintf("t%d", i), "type": "transform", "parameters": map[string]any{"expression": "."}})
			if i > 0 {
				edges = append(edges, map[string]any{"source": fmt.Sprintf("t%d", i-1), "target": fmt.Sprintf("t%d", i)})
			}
		}
		return map[string]any{"version": 1, "tasks": tasks, "edges": edges}
	}
	if p := Edit(chain(20000), "also e-mail ops@example.com"); p.Understood || !strings.Contains(p.Plan, "PUT /api/flows/{id}/definition") {
		t.Fatalf("%+v", p.Plan)
	}
	if p := Edit(chain(maxEditTasks), "also e-mail ops@example.com and remove t5"); !p.Understood || len(p.Changes) == 0 {
		t.Fatalf("a flow at the bound is not edited: %s", p.Plan)
	}
}
