package run

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
)

// errNotMany is what CreateMany answers for an execution it does not start with others; its caller
// starts each with Create instead.
var errNotMany = errors.New("run: an execution without an id or a run number taken apart, or of a version without tasks, " +
	"is started alone")

// CreateMany is Create for several executions at once, in tx: their rows, their tasks and their first
// attempts are one statement for all of them, and their first attempts' River jobs one insert. The
// outcomes their first tasks ran ahead with are walked in memory first (see walkAhead), and the attempts
// that walk makes ready and that only record run before the rows are written (see recordAhead), so the
// rows are written as all of that leaves them; what those attempts write goes in after, together where
// their executors allow it (see inlineMany). Each execution must have its id and a run number taken
// apart (TakeRunNumber); errNotMany otherwise. The caller calls Run on each returned value once tx has
// committed (Drop on each if it did not).
func (e *Engine) CreateMany(ctx context.Context, tx *sqlx.Tx, ns []NewExecution) ([]*Started, error) {
	sts := make([]*Started, len(ns))
	fs := make([]fresh, len(ns))
	for i, n := range ns {
		sts[i] = &Started{e: e, b: &batch{flow: n.Flow, version: n.Version, starts: true}}
		fs[i].x = Execution{ID: n.ID, Org: n.Org, Flow: n.Flow, Version: n.Version, Input: n.Input, Pre: n.Pre}
	}
	// Places taken here for attempts that are then not written are given back.
	giveBack := func() {
		for i, f := range fs {
			for range f.taken {
				e.local.release(ns[i].Org)
			}
		}
	}
	var rows manyRows
	for i, n := range ns {
		if err := e.layOne(ctx, tx, n, &fs[i], sts[i].b); err != nil {
			giveBack()
			ended(fs[:i+1], err)
			return sts, err
		}
		rows.add(n, &fs[i])
	}
	written, err := e.writeMany(ctx, tx, rows)
	if err != nil {
		giveBack()
		ended(fs, err)
		return sts, err
	}
	var params []river.InsertManyParams
	for i, n := range ns {
		params = e.place(ctx, n.Org, n.ID, fs[i].atts, fs[i].here, written[n.ID], sts[i].b, params)
	}
	if len(params) > 0 {
		if _, err := e.queue.InsertManyTx(ctx, tx.Tx, params); err != nil {
			ended(fs, err)
			return sts, err
		}
	}
	return sts, e.inlineMany(ctx, tx, fs, sts)
}

// layOne lays out execution n of CreateMany in f, walks what its first tasks ran ahead with, and takes
// places here for the attempts this process may run once tx commits.
func (e *Engine) layOne(ctx context.Context, tx *sqlx.Tx, n NewExecution, f *fresh, b *batch) error {
	if n.ID == uuid.Nil || n.RunNumber <= 0 {
		return errNotMany
	}
	p, err := e.plan(ctx, tx, n.Flow, n.Version)
	if err != nil {
		return err
	}
	if f.l, err = lay(p, f.x); err != nil {
		return err
	}
	if len(f.l.names) == 0 {
		return errNotMany
	}
	if f.mem, f.w, err = e.walkAhead(ctx, p, f.x, f.l); err != nil {
		return err
	}
	f.atts = f.l.atts
	if f.mem != nil {
		f.atts = append(f.atts[:len(f.atts):len(f.atts)], f.w.ready...)
	}
	f.here, f.taken = e.claimHere(n.Org, f.atts, b)
	return e.recordAhead(ctx, tx, n, f, b)
}

// recordAhead runs, before f's rows are written, its attempts claimed here whose executors only record
// (run writes nothing: what they write is their InTx, see inlineMany), so that those that park are
// written parked, and their execution waiting for input, with no statement to park them. An execution
// whose first outcomes are left to the database (walkAhead) runs them after they are recorded, in
// inline.
func (e *Engine) recordAhead(ctx context.Context, tx *sqlx.Tx, n NewExecution, f *fresh, b *batch) error {
	if f.mem == nil && len(f.l.ahead) > 0 {
		return nil
	}
	for j, a := range f.atts {
		if !f.here[j] || a.ahead || len(f.ran) >= maxInline {
			continue
		}
		o, actx, span, ok, err := e.runRecording(ctx, tx, runHere(ctx, n.Org, n.ID, a, b))
		if err != nil {
			return err
		}
		if ok {
			if f.ran == nil {
				f.ran = map[string]parkedHere{}
			}
			f.ran[a.task] = parkedHere{o: o, ctx: actx, span: span}
		}
	}
	return nil
}

// writeMany writes the executions, their tasks, their first attempts and the tasks their first round
// skipped in one statement, and answers which attempts it wrote, by execution and task.
func (e *Engine) writeMany(ctx context.Context, tx *sqlx.Tx, r manyRows) (map[uuid.UUID]map[string]bool, error) {
	docs := make([]string, 4)
	for i, v := range []any{r.execs, r.tasks, r.atts, r.skips} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if docs[i] = string(b); docs[i] == "null" {
			docs[i] = "[]" // no rows
		}
	}
	var rows []struct {
		Exec uuid.UUID `db:"flow_execution_id"`
		Task string    `db:"task_name"`
	}
	if err := tx.SelectContext(ctx, &rows, `
		WITH x AS (
			INSERT INTO flow_executions (id, organization_id, flow_id, flow_version, status, input, run_number, created_by,
				modified_by, job_app_id, job_id, tasks_left, started_at)
			SELECT id, org, flow, version, status, input, run_number, created_by, actor, job_app, job, tasks,
				CASE WHEN status <> 'queued' THEN now() END
			FROM jsonb_to_recordset($1::jsonb) AS v (id uuid, org uuid, flow uuid, version int, input jsonb, run_number bigint,
				created_by uuid, actor text, job_app uuid, job bigint, tasks int, status text)
		), t AS (
			INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id, state, waiting_on, held, attempts, output)
			SELECT exec, n, org, st, w, h, a, o::jsonb
			FROM jsonb_to_recordset($2::jsonb) AS t (exec uuid, org uuid, n text, st text, w int, h boolean, a int, o text)
		), s AS (
			INSERT INTO flow_task_statuses (organization_id, flow_execution_id, task_name, status, modified_by)
			SELECT org, exec, n, 'skipped', 'system' FROM jsonb_to_recordset($4::jsonb) AS s (exec uuid, org uuid, n text)
		)
		INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input, vars,
			output, detail, started_at, timeout_at, completed_at)
		SELECT org, exec, n, i, st, input, vars, o::jsonb, dt::jsonb, CASE WHEN st <> 'queued' THEN now() END,
			CASE WHEN st <> 'queued' AND NOT p THEN now() + make_interval(secs => $5) END, CASE WHEN st = 'completed' THEN now() END
		FROM jsonb_to_recordset($3::jsonb) AS a (exec uuid, org uuid, n text, i int, st text, input jsonb, vars jsonb, o text, dt text,
			p boolean)
		ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING
		RETURNING flow_execution_id, task_name`, docs[0], docs[1], docs[2], docs[3], e.lease.Seconds()); err != nil {
		return nil, err
	}
	written := make(map[uuid.UUID]map[string]bool, len(r.execs))
	for _, row := range rows {
		if written[row.Exec] == nil {
			written[row.Exec] = map[string]bool{}
		}
		written[row.Exec][row.Task] = true
	}
	return written, nil
}
