package run

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// Rerun moves a finished (completed or failed) execution to a new version of its flow and runs again
// what the new version changed: every task whose definition or incoming edges changed, every task that
// had not completed, and everything downstream of them. The results of the other tasks are kept; each
// task run again gets its next attempt index. It runs in the caller's transaction, the one that saves
// the version.
func (e *Engine) Rerun(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, version int) error {
	var x execRow
	if err := tx.GetContext(ctx, &x, `SELECT organization_id, flow_id, flow_version, status, tasks_left
		FROM flow_executions WHERE id = $1 FOR UPDATE`, exec); err != nil {
		return err
	}
	if x.Status != state.ExecCompleted && x.Status != state.ExecFailed {
		return nil
	}
	old, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	p, err := e.plan(ctx, tx, x.Flow, version)
	if err != nil {
		return err
	}
	var rows []struct {
		Name   string          `db:"task_name"`
		State  state.Task      `db:"state"`
		Output json.RawMessage `db:"output"`
		Detail []byte          `db:"detail"` // text: "" for none
	}
	// A condition's result is the detail of its latest completed attempt.
	if err := tx.SelectContext(ctx, &rows, `SELECT task_name, state, coalesce(output, 'null') AS output,
		coalesce((SELECT t.detail::text FROM task_executions t WHERE t.flow_execution_id = k.flow_execution_id
			AND t.task_name = k.task_name AND t.status = 'completed' ORDER BY t.task_execution_idx DESC LIMIT 1), '') AS detail
		FROM execution_tasks k WHERE flow_execution_id = $1`, exec); err != nil {
		return err
	}
	kept := map[string]produced{}
	for _, r := range rows {
		if r.State == state.TaskCompleted {
			kept[r.Name] = produced{task: r.Name, typ: p.typeOf(r.Name), output: r.Output, result: resultOf(json.RawMessage(r.Detail))}
		}
	}
	dirty := map[string]bool{}
	var mark func(string)
	mark = func(n string) {
		if dirty[n] {
			return
		}
		dirty[n] = true
		for _, l := range p.succ[n] {
			mark(l.target)
		}
	}
	for _, n := range p.order {
		if _, done := kept[n]; !done || old.tasks[n] == nil || signature(old, n) != signature(p, n) {
			mark(n)
		}
	}
	return e.rerun(ctx, tx, x, exec, version, p, kept, dirty)
}

// rerun lays the execution out again on the version and starts the dirty tasks whose predecessors
// are all kept.
func (e *Engine) rerun(ctx context.Context, tx *sqlx.Tx, x execRow, exec uuid.UUID, version int, p *plan,
	kept map[string]produced, dirty map[string]bool) error {
	names := make([]string, 0, len(p.order))
	for _, n := range p.order {
		names = append(names, n)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM execution_tasks WHERE flow_execution_id = $1 AND NOT (task_name = ANY($2))`,
		exec, pq.Array(names)); err != nil {
		return err
	}
	if err := clearSkipped(ctx, tx, exec, dirty); err != nil {
		return err
	}
	var starts []string
	held := map[string]bool{}
	// later are the kept predecessors whose conditional links into tasks run again are decided after
	// this transaction (see rerunEdges), with the tasks each one's links go to.
	later := map[string][]string{}
	for _, n := range p.order {
		if !dirty[n] {
			continue
		}
		waiting := 0
		held[n] = len(p.preds[n]) == 0
		for _, pred := range p.preds[n] {
			if dirty[pred] {
				waiting++
				continue
			}
			for _, l := range p.succ[pred] {
				if l.target != n {
					continue
				}
				if l.conditional() {
					waiting++
					later[pred] = append(later[pred], n)
					continue
				}
				h, err := l.holdsPlain(kept[pred])
				if err != nil {
					return err
				}
				held[n] = held[n] || h
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id, state, waiting_on, held)
			VALUES ($1, $2, $3, 'waiting', $4, $5)
			ON CONFLICT (flow_execution_id, task_name) DO UPDATE SET state = 'waiting', waiting_on = $4, held = $5,
				output = NULL, updated_at = now()`, exec, n, x.Org, waiting, held[n]); err != nil {
			return err
		}
		if waiting == 0 {
			starts = append(starts, n)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE flow_executions SET flow_version = $2, status = 'queued', tasks_left = $3,
		output = NULL, error = NULL, finished_at = NULL, updated_at = now() WHERE id = $1`, exec, version, len(dirty)); err != nil {
		return err
	}
	var input json.RawMessage
	if err := tx.GetContext(ctx, &input, `SELECT coalesce(input, '{}') FROM flow_executions WHERE id = $1`, exec); err != nil {
		return err
	}
	w := walk{e: e, tx: tx, exec: exec, p: p, input: input}
	var ready, skipped []string
	var finished []final
	for _, n := range starts {
		if held[n] {
			ready = append(ready, n)
		} else {
			skipped = append(skipped, n)
			finished = append(finished, final{task: n})
		}
	}
	if err := w.skip(ctx, skipped); err != nil {
		return err
	}
	if err := w.start(ctx, ready); err != nil {
		return err
	}
	if err := w.finish(ctx, finished); err != nil {
		return err
	}
	if err := e.enqueue(ctx, tx, x.Org, exec, w.ready, nil); err != nil {
		return err
	}
	if err := e.rerunLater(ctx, tx, x, exec, version, later); err != nil {
		return err
	}
	if w.final == 0 && len(dirty) > 0 {
		return nil // queued until its first task starts
	}
	return e.settle(ctx, tx, x, p, exec, w.final)
}

// signature is what makes a task the same task in two versions: its own definition and its incoming
// edges.
func signature(p *plan, name string) string {
	t := p.tasks[name]
	b, _ := json.Marshal(struct {
		Task  dsl.Task
		Edges []string
	}{Task: dsl.Task{Name: t.Name, Type: t.Type, Parameters: t.Parameters, Retry: t.Retry, TimeoutSeconds: t.TimeoutSeconds},
		Edges: p.edgesInto(name)})
	return string(b)
}

// edgesInto are the edges into a task, each as its source and conditions, sorted.
func (p *plan) edgesInto(name string) []string {
	var out []string
	for _, pred := range p.preds[name] {
		for _, l := range p.succ[pred] {
			if l.target == name {
				texts := append([]string(nil), l.texts...)
				sort.Strings(texts)
				out = append(out, pred+"\x00"+strings.Join(texts, "\x00"))
			}
		}
	}
	sort.Strings(out)
	return out
}

// clearSkipped clears the task status `skipped` of the tasks a rerun lays out again (see walk.skip).
func clearSkipped(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, dirty map[string]bool) error {
	names := make([]string, 0, len(dirty))
	for n := range dirty {
		names = append(names, n)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO flow_task_statuses (organization_id, flow_execution_id, task_name, status, modified_by)
		SELECT organization_id, flow_execution_id, task_name, NULL, 'system' FROM execution_tasks
		WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'skipped' ORDER BY task_name`, exec, pq.Array(names))
	return err
}
