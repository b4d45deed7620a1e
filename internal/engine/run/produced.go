package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// produced is what a completed attempt gives the edges out of its task.
type produced struct {
	task   string
	typ    string
	output json.RawMessage
	// result is a condition's result, the branch its edges follow (nil for other task types).
	result *bool
	// vars are the variables the attempt was handed (nil: none); conditions that read variables get
	// them with the task's own output added.
	vars json.RawMessage
}

// resultOf is a condition's result from its attempt's detail ({"result": bool}).
func resultOf(detail any) *bool {
	switch d := detail.(type) {
	case map[string]any:
		if b, ok := d["result"].(bool); ok {
			return &b
		}
	case json.RawMessage:
		var m struct {
			Result *bool `json:"result"`
		}
		if json.Unmarshal(d, &m) == nil {
			return m.Result
		}
	}
	return nil
}

// condVars are the variables edge conditions get: the attempt's, with the task's own output in $tasks.
func (src produced) condVars() (json.RawMessage, error) {
	// An outside worker's attempt completes without running here, so its variables may be the
	// stand-in for ones past the bound: its conditions fail as its task would have.
	if err := varsError(src.vars, MaxVars); err != nil {
		return nil, err
	}
	var v jqrun.Vars
	if len(src.vars) > 0 {
		if err := json.Unmarshal(src.vars, &v); err != nil {
			return nil, err
		}
	}
	if v.Tasks == nil {
		v.Tasks = map[string]json.RawMessage{}
	}
	v.Tasks[src.task] = src.output
	return json.Marshal(v)
}

// producedBy is what an attempt that completed gives the edges out of its task. The variables of an
// attempt that did not run here (a wait's end) are read from it when a condition needs them.
func (e *Engine) producedBy(ctx context.Context, p *plan, a taskArgs, o outcome) (produced, error) {
	src := produced{task: a.Task, typ: p.typeOf(a.Task), output: o.output, vars: o.vars, result: resultOf(o.result.Detail)}
	if src.vars != nil || !p.condVars(a.Task) {
		return src, nil
	}
	err := e.db.GetContext(ctx, (*[]byte)(&src.vars), `SELECT coalesce(vars::text, '') FROM task_executions
		WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`, a.Execution, a.Task, a.Idx)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return src, err
}

// condVars is whether a condition of an edge out of task reads variables.
func (p *plan) condVars(task string) bool {
	for _, l := range p.succ[task] {
		if l.vars {
			return true
		}
	}
	return false
}

// nullJSON is JSON for a nullable jsonb parameter: nil (NULL) when empty.
func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
