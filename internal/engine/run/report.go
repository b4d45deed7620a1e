package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// AttemptKey names one attempt of a task.
type AttemptKey struct {
	Execution uuid.UUID
	Task      string
	Idx       int
}

// Report finishes a running attempt that waits for the outside (a review, an outside worker), in tx:
// completed with output when cause is nil, failed otherwise (retried as the task's retry allows). An
// attempt that is not running, or an execution that stopped, is left as it is.
//
// A completion whose edges out have conditions is not recorded in tx: those are tenant programs, and tx
// holds row locks. It is handed to a job instead, inserted in tx, that decides the edges once tx has
// committed and then records the completion as a wait's end is recorded (see finish); until then the
// attempt stays running without a lease, so that neither the sweep nor another claim takes it.
func (e *Engine) Report(ctx context.Context, tx *sqlx.Tx, k AttemptKey, output json.RawMessage, cause error) error {
	if output == nil {
		output = json.RawMessage(`null`)
	}
	a := taskArgs{Execution: k.Execution, Task: k.Task, Idx: k.Idx}
	if cause != nil {
		return e.record(ctx, tx, a, outcome{err: cause}, nil)
	}
	var x execRow
	err := tx.GetContext(ctx, &x, `SELECT organization_id, flow_id, flow_version, status, tasks_left
		FROM flow_executions WHERE id = $1`, k.Execution)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	p, err := e.plan(ctx, tx, x.Flow, x.Version)
	if err != nil {
		return err
	}
	if p.conditional(k.Task) {
		return e.resumeLater(ctx, tx, a, x.Org, output)
	}
	dec, err := e.decidePlain(p, produced{task: k.Task, typ: p.typeOf(k.Task), output: output})
	if err != nil {
		return err
	}
	return e.record(ctx, tx, a, outcome{output: output, dec: dec}, nil)
}

// resumeLater hands the completion of a running attempt to a job, in tx (see Report).
func (e *Engine) resumeLater(ctx context.Context, tx *sqlx.Tx, a taskArgs, org uuid.UUID, output json.RawMessage) error {
	var running bool
	err := tx.GetContext(ctx, &running, `UPDATE task_executions SET timeout_at = NULL, updated_at = now()
		WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3 AND status = 'running'
		RETURNING true`, a.Execution, a.Task, a.Idx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // finished by an earlier report, or cancelled
	}
	if err != nil {
		return err
	}
	a.Resume, a.Output, a.Org = true, output, org
	_, err = e.queue.InsertTx(ctx, tx.Tx, a, nil)
	return err
}
