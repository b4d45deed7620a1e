package apps

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/platform/executions"
)

// definition is the part of a flow definition (DESIGN.md §6) that super tasks are read from.
type definition struct {
	Tasks []struct {
		Name        string  `json:"name"`
		Type        string  `json:"type"`
		Description *string `json:"description"`
	} `json:"tasks"`
	Edges []struct {
		Source string `json:"source"`
		Target string `json:"target"`
	} `json:"edges"`
}

// superTasks lists the tasks of the version of a flow that the app's jobs run — its latest published
// version, or its latest valid one while none is published (see executions.ForJob) — in topological
// order. Tasks that are independent of each other keep the order of the definition, so the answer is
// stable.
func superTasks(ctx context.Context, db dbx.DBTX, flowID *uuid.UUID) ([]v1api.SuperTask, error) {
	out := []v1api.SuperTask{}
	if flowID == nil {
		return out, nil
	}
	version, ok, err := executions.JobVersion(ctx, db, *flowID)
	if err != nil || !ok {
		return out, err
	}
	var raw []byte
	if err := db.GetContext(ctx, &raw, `SELECT definition FROM flow_versions WHERE flow_id = $1 AND version = $2`,
		*flowID, version); err != nil {
		return nil, err
	}
	var def definition
	if err := json.Unmarshal(raw, &def); err != nil {
		// Stored definitions were validated when written; one that does not parse has no tasks to show.
		return out, nil
	}
	for i, idx := range topoOrder(def) {
		t := def.Tasks[idx]
		out = append(out, v1api.SuperTask{Name: t.Name, Type: t.Type, Description: t.Description, Position: i})
	}
	return out, nil
}

// topoOrder returns the task indexes in topological order (Kahn's algorithm, always taking the
// earliest ready task of the definition). Tasks on a cycle, which validation refuses, come last.
func topoOrder(def definition) []int {
	index := make(map[string]int, len(def.Tasks))
	for i, t := range def.Tasks {
		index[t.Name] = i
	}
	indegree := make([]int, len(def.Tasks))
	next := make([][]int, len(def.Tasks))
	for _, e := range def.Edges {
		s, okS := index[e.Source]
		t, okT := index[e.Target]
		if !okS || !okT {
			continue
		}
		next[s] = append(next[s], t)
		indegree[t]++
	}
	done := make([]bool, len(def.Tasks))
	order := make([]int, 0, len(def.Tasks))
	for len(order) < len(def.Tasks) {
		pick := -1
		for i := range def.Tasks {
			if !done[i] && indegree[i] == 0 {
				pick = i
				break
			}
		}
		if pick < 0 {
			for i := range def.Tasks {
				if !done[i] {
					order = append(order, i)
					done[i] = true
				}
			}
			break
		}
		done[pick] = true
		order = append(order, pick)
		for _, t := range next[pick] {
			indegree[t]--
		}
	}
	return order
}
