package run

import (
	"context"
	"encoding/json"

	"github.com/lib/pq"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// skip marks tasks skipped: every predecessor finished and no edge to them held. Each also gets the task
// status `skipped` (GET /api/flow-executions/{id}/task-statuses), since a skipped task has no attempt
// to show that it will not run.
func (w *walk) skip(ctx context.Context, tasks []string) error {
	if len(tasks) == 0 {
		return nil
	}
	if w.mem != nil {
		w.mem.skip(tasks)
		return nil
	}
	_, err := w.tx.ExecContext(ctx, `WITH s AS (UPDATE execution_tasks SET state = 'skipped', updated_at = now()
			WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'waiting'`+inNames("task_name", "$2")+` RETURNING organization_id, task_name)
		INSERT INTO flow_task_statuses (organization_id, flow_execution_id, task_name, status, modified_by)
		SELECT organization_id, $1, task_name, 'skipped', 'system' FROM s ORDER BY task_name`, w.exec, pq.Array(tasks))
	return err
}

// start makes tasks ready whose predecessors all finished with an edge to them holding: each gets its
// next attempt, queued with its input. One statement marks them ready and reads what their inputs and
// variables are made of (see inputs).
func (w *walk) start(ctx context.Context, tasks []string) error {
	if len(tasks) == 0 {
		return nil
	}
	names, wantInput := w.needed(tasks)
	var rows []readyRow
	// The rows read are the predecessors' (completed), never those the statement makes ready (waiting).
	if err := w.tx.SelectContext(ctx, &rows, `WITH r AS (UPDATE execution_tasks SET state = 'ready', attempts = attempts + 1,
			updated_at = now() WHERE flow_execution_id = $1 AND task_name = ANY($4) AND state = 'waiting'`+inNames("task_name", "$4")+`
			RETURNING task_name, attempts)
		SELECT task_name, coalesce(output, 'null') AS output, 0 AS kind, 0 AS attempts, false AS held
		FROM execution_tasks WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'completed'`+inNames("task_name", "$2")+`
		UNION ALL SELECT '', coalesce(input, '{}'), 1, 0, false FROM flow_executions WHERE id = $1 AND $3
		UNION ALL SELECT task_name, 'null', 2, attempts, true FROM r`,
		w.exec, pq.Array(names), wantInput, pq.Array(tasks)); err != nil {
		return err
	}
	return w.made(rows)
}

// readyRow is a row of the statements that make tasks ready: what their inputs are made of, and the
// tasks themselves.
type readyRow struct {
	Name     string          `db:"task_name"`
	Output   json.RawMessage `db:"output"`
	Kind     int             `db:"kind"` // 0: a task's output, 1: the execution's input, 2: a task decided, 3: a task not finished (see fresh)
	Attempts int             `db:"attempts"`
	Held     bool            `db:"held"` // of a task decided: made ready (false: to be skipped)
}

// made queues the next attempt of each task rows made ready, with the input and variables made of the
// outputs (and the execution's input) rows read.
func (w *walk) made(rows []readyRow) error {
	outputs := make(map[string]json.RawMessage, len(rows))
	var tasks []string
	for _, r := range rows {
		switch {
		case r.Kind == 0:
			outputs[r.Name] = r.Output
		case r.Kind == 1:
			w.input = r.Output
		case r.Held:
			tasks = append(tasks, r.Name)
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	inputs, vars, err := w.inputs(tasks, outputs)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Kind == 2 && r.Held {
			w.ready = append(w.ready, attempt{task: r.Name, idx: r.Attempts - 1, input: inputs[r.Name], vars: vars[r.Name],
				external: w.p.tasks[r.Name].Type == External})
		}
	}
	return nil
}

// needed names the tasks whose outputs the inputs and variables of tasks are made of, and whether they
// need the execution's input, which is read once.
func (w *walk) needed(tasks []string) ([]string, bool) {
	var names []string
	seen := map[string]bool{}
	wantInput := false
	for _, t := range tasks {
		need := w.p.needs[t]
		wantInput = wantInput || need.Input
		for _, list := range [2][]string{w.p.preds[t], need.Tasks} {
			for _, p := range list {
				if !seen[p] {
					seen[p] = true
					names = append(names, p)
				}
			}
		}
	}
	return names, wantInput && w.input == nil
}

// inputs are the inputs of tasks that became ready: a task's predecessor's output, or, with several,
// an object of the completed predecessors' outputs by name; and the variables of those whose
// expressions read some (see varsOf), from the outputs read with them.
func (w *walk) inputs(tasks []string, outputs map[string]json.RawMessage) (map[string]json.RawMessage, map[string]json.RawMessage, error) {
	vars, err := w.vars(tasks, outputs)
	if err != nil {
		return nil, nil, err
	}
	in := make(map[string]json.RawMessage, len(tasks))
	for _, t := range tasks {
		ps := w.p.preds[t]
		if len(ps) == 0 { // a root, run again: the execution's input
			in[t] = w.input
			continue
		}
		if out, ok := outputs[ps[0]]; len(ps) == 1 && ok {
			in[t] = out
			continue
		}
		by := make(map[string]json.RawMessage, len(ps))
		for _, p := range ps {
			if out, ok := outputs[p]; ok {
				by[p] = out
			}
		}
		b, err := json.Marshal(by)
		if err != nil {
			return nil, nil, err
		}
		in[t] = b
	}
	return in, vars, nil
}

// vars are the variables of the tasks whose expressions read some: the execution's input when they read
// $input, and the outputs of completed tasks they name in $tasks.
func (w *walk) vars(tasks []string, outputs map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	for _, t := range tasks {
		need, ok := w.p.needs[t]
		if !ok {
			continue
		}
		v := jqrun.Vars{Tasks: make(map[string]json.RawMessage, len(need.Tasks))}
		if need.Input {
			v.Input = w.input
		}
		for _, n := range need.Tasks {
			if o, ok := outputs[n]; ok {
				v.Tasks[n] = o
			}
		}
		b, err := json.Marshal(v)
		if err == nil {
			b, err = boundVars(b, w.e.maxVars)
		}
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[t] = b
	}
	return out, nil
}
