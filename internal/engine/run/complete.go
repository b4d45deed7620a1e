package run

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// completeGroup completes the attempts that are still running in one statement, which locks them
// (in name order, as every transaction of the engine takes them) and reads their execution; those not
// running any more were finished by an earlier delivery or cancelled, and those of an execution that
// stopped meanwhile are cancelled instead. A lone completion's line of steps ahead (draft, from
// draftLine; nil: none) is written in the same statement, when the attempt completes on the version the
// steps ran on.
//
// The status is compared under the "C" collation (equality is the same under any) so that the planner
// cannot use task_executions_waiting_idx, the partial index of queued and running attempts: its
// predicate follows from status = 'running', and a generic plan that ANDed a scan of all of it with the
// execution's attempts was cheap by the statistics, which count its live entries, while every attempt
// leaves two dead ones until vacuum. As the table grew, vacuum came less often; in a 20-minute soak this
// statement went from 2.6 to 15.6 ms, 95 to 495 buffers a call, and 10 to 39% of the database's time.
func (e *Engine) completeGroup(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, round []*completion, draft *lineDraft, b *batch) error {
	byAttempt(round)
	names, idxs, outs := make([]string, len(round)), make([]int64, len(round)), make([]string, len(round))
	details := make([]string, len(round))
	for i, r := range round {
		names[i], idxs[i], outs[i], details[i] = r.args.Task, int64(r.args.Idx), string(r.output), string(r.detail)
	}
	var rows []struct {
		execRow
		Task    string          `db:"task_name"`
		Attempt state.Attempt   `db:"attempt_status"`
		Output  json.RawMessage `db:"output"`
		lineMade
	}
	args := []any{exec, pq.Array(names), pq.Array(idxs), pq.Array(outs), pq.Array(details)}
	line, made := "", `0 AS line_tasks, 0 AS line_attempts, 0 AS line_next`
	if draft != nil {
		line, made = draft.sql(&args, e.lease.Seconds())
	}
	if err := tx.SelectContext(ctx, &rows, `
		WITH d AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[]) AS d (n, i, o, dt)),
		att AS (
			UPDATE task_executions t SET updated_at = now(), completed_at = now(),
				status = CASE WHEN x.status IN `+state.List(state.ExecActive)+` THEN 'completed' ELSE 'cancelled' END,
				output = CASE WHEN x.status IN `+state.List(state.ExecActive)+` THEN d.o::jsonb END,
				detail = coalesce(nullif(d.dt, '')::jsonb, t.detail)
			FROM d, flow_executions x
			WHERE t.flow_execution_id = $1 AND t.task_name = d.n AND t.task_execution_idx = d.i
			  AND t.status COLLATE "C" = 'running' AND x.id = t.flow_execution_id`+inNames("t.task_name", "$2")+`
			RETURNING t.task_name, t.status AS attempt_status, t.output, x.organization_id, x.flow_id, x.flow_version,
				x.status, x.tasks_left),
		k AS (
			UPDATE execution_tasks k SET state = 'completed', output = att.output, updated_at = now()
			FROM att WHERE att.attempt_status = 'completed' AND k.flow_execution_id = $1 AND k.task_name = att.task_name`+inNames("k.task_name", "$2")+`)`+line+`
		SELECT task_name, attempt_status, coalesce(output, 'null') AS output, organization_id, flow_id, flow_version,
			status, tasks_left, `+made+` FROM att ORDER BY task_name`, args...); err != nil {
		return err
	}
	if len(rows) == 0 || rows[0].Attempt != state.AttemptCompleted {
		return nil
	}
	x := rows[0].execRow
	p, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	b.flow, b.version = x.Flow, x.Version
	decs := make(map[string]*decision, len(round))
	for _, r := range round {
		if r.dec == nil || r.dec.key != p.key {
			return errUndecided // recorded one by one instead, where record sees the version changed
		}
		decs[r.args.Task] = r.dec
	}
	if draft != nil {
		// The attempt completed on the version the line was decided on, so the statement wrote it.
		if rows[0].Tasks != draft.ready() || rows[0].Attempts != len(draft.steps) {
			return fmt.Errorf("run: a line of %d steps then %q made %d tasks ready and wrote %d attempts", len(draft.steps),
				draft.next, rows[0].Tasks, rows[0].Attempts)
		}
		draft.idx = rows[0].Next
	}
	finished := make([]final, len(rows))
	for i, r := range rows {
		finished[i] = final{task: r.Task, completed: true, output: r.Output, dec: decs[r.Task]}
	}
	return e.advanceLine(ctx, tx, x, p, exec, round, finished, draft, b)
}

// byAttempt sorts a round by task name and attempt: the order in which its transaction locks their
// rows, and the writes handed over with them (ReportTogether), so that two rounds never wait for
// each other's locks in a circle.
func byAttempt(round []*completion) {
	sort.Slice(round, func(i, j int) bool {
		if round[i].args.Task != round[j].args.Task {
			return round[i].args.Task < round[j].args.Task
		}
		return round[i].args.Idx < round[j].args.Idx
	})
}
