package taskexecutions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// report is a request as the statements take it: the JSON fields as text, nil when not sent.
type report struct {
	platformapi.CreateTaskExecutionRequest
	input, output, error *string
	actor                string
}

// sent is the JSON text of a field, nil when it was omitted.
func sent(raw json.RawMessage) *string {
	if len(raw) == 0 {
		return nil
	}
	s := string(raw)
	return &s
}

// isNull is whether a field was omitted or sent as null, which count the same for output and error.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// newReport checks what the schema cannot say: output goes only with completed, error only with failed.
func newReport(p *auth.Principal, b platformapi.CreateTaskExecutionRequest) (report, error) {
	r := report{CreateTaskExecutionRequest: b, input: sent(b.Input), actor: p.Actor()}
	var items []httpx.ValidationItem
	if !isNull(b.Output) {
		if b.Status != platformapi.TaskExecutionStatusCompleted {
			items = append(items, httpx.ValidationItem{Loc: []any{"body", "output"}, Type: "output_not_allowed",
				Msg: "output is accepted only with status completed, not with " + string(b.Status)})
		}
		r.output = sent(b.Output)
	}
	if b.Error != nil {
		if b.Status != platformapi.TaskExecutionStatusFailed {
			items = append(items, httpx.ValidationItem{Loc: []any{"body", "error"}, Type: "error_not_allowed",
				Msg: "error is accepted only with status failed, not with " + string(b.Status)})
		}
		text, err := json.Marshal(b.Error)
		if err != nil {
			return r, err
		}
		s := string(text)
		r.error = &s
	}
	if items != nil {
		return r, httpx.InvalidItems(items)
	}
	return r, nil
}

// final are the statuses an attempt never leaves.
func final(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// checkMove allows the forward moves and repeats of the current status; anything else is 409.
func checkMove(from, to string) error {
	if from == to || (from == "queued" && to != "queued") || (from == "running" && final(to)) {
		return nil
	}
	return httpx.Conflict("a task execution cannot move from %s to %s: statuses only move forward, and %s", from, to,
		map[bool]string{true: from + " is final", false: "running never goes back to queued"}[final(from)])
}

// RecordTaskExecution creates or updates one attempt under the attempt's row lock; an attempt the
// engine runs that reaches a final status is handed to the engine in the same transaction.
func (s *Service) RecordTaskExecution(ctx context.Context, req platformapi.RecordTaskExecutionRequestObject) (platformapi.RecordTaskExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := newReport(p, *req.Body)
	if err != nil {
		return nil, err
	}
	var out row
	created := false
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		// The execution is read, not locked: the attempt's row lock below orders this report with the
		// engine's own work on the attempt, which locks attempts before executions too.
		h, err := visible(ctx, tx, p, r.FlowExecutionId)
		if err != nil {
			return err
		}
		if h.Deleted {
			return errDeleted
		}
		var cur row
		err = tx.GetContext(ctx, &cur, `SELECT `+columns+` FROM task_executions t
			WHERE t.flow_execution_id = $1 AND t.task_name = $2 AND t.task_execution_idx = $3 FOR UPDATE`,
			r.FlowExecutionId, r.TaskName, r.TaskExecutionIdx)
		if errors.Is(err, sql.ErrNoRows) {
			created = true
			return tx.GetContext(ctx, &out, insertQuery, h.Org, r.FlowExecutionId, r.TaskName, r.TaskExecutionIdx,
				string(r.Status), r.input, r.output, r.error, r.actor)
		}
		if err != nil {
			return err
		}
		to := string(r.Status)
		if err := checkMove(cur.Status, to); err != nil {
			return err
		}
		if cur.Status != to {
			engine, err := s.runsOnEngine(ctx, tx, cur)
			if err != nil {
				return err
			}
			if engine {
				out, err = s.toEngine(ctx, tx, cur, r)
				return err
			}
		}
		return tx.GetContext(ctx, &out, updateQuery, cur.ID, to, r.input, r.output, r.error, r.actor)
	})
	if err != nil {
		return nil, err
	}
	api, err := withTags(ctx, s.db, out.Execution, []row{out})
	if err != nil {
		return nil, err
	}
	if created {
		return platformapi.RecordTaskExecution201JSONResponse(api[0]), nil
	}
	return platformapi.RecordTaskExecution200JSONResponse(api[0]), nil
}

// insertQuery records a first report. An attempt that is reported completed or failed first has started
// then too. Parameters: organization, execution, task, idx, status, input, output, error, actor.
const insertQuery = `INSERT INTO task_executions AS t (organization_id, flow_execution_id, task_name, task_execution_idx,
	status, input, output, error, started_at, completed_at, modified_by)
	VALUES ($1, $2, $3, $4, $5, nullif($6::jsonb, 'null'), nullif($7::jsonb, 'null'), $8::jsonb,
		CASE WHEN $5 IN ('running', 'completed', 'failed') THEN now() END,
		CASE WHEN $5 IN ('completed', 'failed', 'cancelled') THEN now() END, $9)
	RETURNING ` + columns

// updateQuery applies a later report, which checkMove allowed: the fields sent replace the stored ones
// (an SQL NULL parameter is a field not sent; JSON null stores null). A repeated running of an attempt
// under a lease is a heartbeat: the lease was granted from updated_at to timeout_at, and starts again
// from now. Parameters: id, status, input, output, error, actor.
const updateQuery = `UPDATE task_executions t SET status = $2,
	input = CASE WHEN $3::jsonb IS NULL THEN t.input ELSE nullif($3::jsonb, 'null') END,
	output = CASE WHEN $4::jsonb IS NULL THEN t.output ELSE nullif($4::jsonb, 'null') END,
	error = coalesce($5::jsonb, t.error),
	started_at = CASE WHEN $2 IN ('running', 'completed', 'failed') THEN coalesce(t.started_at, now()) ELSE t.started_at END,
	completed_at = CASE WHEN $2 IN ('completed', 'failed', 'cancelled') THEN coalesce(t.completed_at, now()) END,
	timeout_at = CASE WHEN t.status = 'running' AND $2 = 'running' AND t.timeout_at > t.updated_at
		THEN now() + (t.timeout_at - t.updated_at) ELSE t.timeout_at END,
	updated_at = now(), modified_by = $6
	WHERE t.id = $1 RETURNING ` + columns
