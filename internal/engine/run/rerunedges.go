package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// rerunEdgesArgs is the job that decides, once the transaction of a Rerun has committed, the
// conditional links out of a task whose result the rerun kept into the tasks it runs again: those are
// tenant programs, and that transaction holds the execution's row lock. Until the job has run, each of
// those tasks counts the link among the predecessors it waits for.
type rerunEdgesArgs struct {
	Execution uuid.UUID `json:"execution"`
	Flow      uuid.UUID `json:"flow"`
	Version   int       `json:"version"`
	Task      string    `json:"task"`
	Targets   []string  `json:"targets"`
}

func (rerunEdgesArgs) Kind() string { return "flow_rerun_edges" }

type rerunEdgesWorker struct {
	river.WorkerDefaults[rerunEdgesArgs]
	e *Engine
}

// rerunLater queues, in the rerun's transaction, a job for each kept task in later.
func (e *Engine) rerunLater(ctx context.Context, tx *sqlx.Tx, x execRow, exec uuid.UUID, version int, later map[string][]string) error {
	tasks := make([]string, 0, len(later))
	for t := range later {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	for _, t := range tasks {
		if _, err := e.queue.InsertTx(ctx, tx.Tx, rerunEdgesArgs{Execution: exec, Flow: x.Flow, Version: version,
			Task: t, Targets: later[t]}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Work decides the links with no transaction open, then applies them as the completion of the kept task
// would have: each target's counter goes down, and a target that waits for nothing more starts or is
// skipped. A condition that passes a limit does not hold (there is no attempt of the kept task to fail).
// The job completes in the transaction that applies it, so it is applied once; it applies nothing to an
// execution that stopped or was moved to another version meanwhile.
func (w *rerunEdgesWorker) Work(ctx context.Context, job *river.Job[rerunEdgesArgs]) error {
	e, a := w.e, job.Args
	p, err := e.plan(ctx, e.db, a.Flow, a.Version)
	if err != nil {
		return err
	}
	var kept struct {
		Output json.RawMessage `db:"output"`
		Detail []byte          `db:"detail"` // text: "" for none
		Vars   []byte          `db:"vars"`
	}
	// The latest completed attempt's detail (a condition's result) and variables go with the output.
	err = e.db.GetContext(ctx, &kept, `SELECT coalesce(k.output, 'null') AS output,
		coalesce(t.detail::text, '') AS detail, coalesce(t.vars::text, '') AS vars FROM execution_tasks k
		LEFT JOIN LATERAL (SELECT detail, vars FROM task_executions t WHERE t.flow_execution_id = k.flow_execution_id
			AND t.task_name = k.task_name AND t.status = 'completed' ORDER BY t.task_execution_idx DESC LIMIT 1) t ON true
		WHERE k.flow_execution_id = $1 AND k.task_name = $2 AND k.state = 'completed'`, a.Execution, a.Task)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	output := kept.Output
	var dec *decision
	if err == nil {
		src := produced{task: a.Task, typ: p.typeOf(a.Task), output: output, result: resultOf(json.RawMessage(kept.Detail)), vars: kept.Vars}
		links := p.succ[a.Task]
		dec = &decision{key: p.key, held: make([]bool, len(links))}
		for i, l := range links {
			h, err := l.holds(ctx, e.jq.eval, src)
			if err != nil && !jqrun.IsLimit(err) {
				return err // the evaluator could not answer: the job runs again
			}
			dec.held[i] = h && err == nil
		}
	}
	return dbx.WithTx(ctx, e.db, func(tx *sqlx.Tx) error {
		if dec != nil {
			if err := e.applyRerunEdges(ctx, tx, a, p, output, dec); err != nil {
				return err
			}
		}
		_, err := river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx.Tx, job)
		return err
	})
}

// applyRerunEdges applies decided links under the execution's lock, taken first as Rerun takes it.
func (e *Engine) applyRerunEdges(ctx context.Context, tx *sqlx.Tx, a rerunEdgesArgs, p *plan, output json.RawMessage, dec *decision) error {
	var x execRow
	err := tx.GetContext(ctx, &x, `SELECT organization_id, flow_id, flow_version, status, tasks_left
		FROM flow_executions WHERE id = $1 FOR UPDATE`, a.Execution)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if x.Flow != a.Flow || x.Version != a.Version || !x.Status.Active() {
		return nil
	}
	w := walk{e: e, tx: tx, exec: a.Execution, p: p}
	if err := w.finish(ctx, []final{{task: a.Task, completed: true, output: output, dec: dec, only: a.Targets}}); err != nil {
		return err
	}
	w.final-- // the kept task itself finished long ago: only what its links decided counts
	if err := e.enqueue(ctx, tx, x.Org, a.Execution, w.ready, nil); err != nil {
		return err
	}
	if w.final == 0 {
		return nil // the tasks that start move the execution on
	}
	return e.settle(ctx, tx, x, p, a.Execution, w.final)
}
