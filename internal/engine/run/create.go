package run

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// NewExecution is an execution for Create: of a version of a flow, in an organization, for whom, and
// (for the /v1 half) for which job.
type NewExecution struct {
	ID, Org, Flow uuid.UUID
	Version       int
	Input         json.RawMessage
	CreatedBy     *uuid.UUID
	Actor         string
	// JobApp and Job name the /v1 job the execution runs, if any.
	JobApp *uuid.UUID
	Job    *int64
	// RunNumber, when not 0, was taken apart from the transaction (TakeRunNumber, RunNumber); otherwise
	// Create takes one from the flow's counter at the end of the transaction.
	RunNumber int
	// Pre holds its first tasks' outcomes, run ahead by Prepare (nil: none).
	Pre *Prepared
}

// Into is where Create puts the new row: the columns to return (an SQL list for a flow_executions row
// aliased x) and what to scan them into, so that the caller reads the row it renders without a second
// statement.
type Into struct {
	Columns string
	Dest    any
}

// Create inserts a queued execution, lays out its tasks and queues its first ones in tx (see StartHere),
// then takes its run number, which it returns. The run number comes last: the flow's counter row is the
// one thing concurrent starts of a flow share, so its lock is held only for the commit. The caller calls
// Run on the returned value once tx has committed (Drop if it did not).
func (e *Engine) Create(ctx context.Context, tx *sqlx.Tx, n NewExecution, into Into) (int, *Started, error) {
	if len(n.Input) == 0 {
		n.Input = json.RawMessage(`{}`)
	}
	if n.ID == uuid.Nil {
		n.ID = uuid.Must(uuid.NewV7()) // time-ordered, as the column's default (migration 00103)
	}
	// The row is written with its count of tasks: a row this transaction inserted is checked against
	// every table it references again each time it is updated, the flow's row among them, which every
	// start of the flow locks.
	p, err := e.plan(ctx, tx, n.Flow, n.Version)
	if err != nil {
		return 0, nil, err
	}
	if err := tx.GetContext(ctx, into.Dest, `INSERT INTO flow_executions AS x (id, organization_id, flow_id, flow_version,
		status, input, run_number, created_by, modified_by, job_app_id, job_id, tasks_left)
		VALUES ($10, $2, $1, $3, 'queued', $4, $9, $5, $6, $7, $8, $11)
		RETURNING `+into.Columns, n.Flow, n.Org, n.Version, string(n.Input), n.CreatedBy, n.Actor, n.JobApp, n.Job, n.RunNumber, n.ID,
		len(p.order)); err != nil {
		return 0, nil, err
	}
	st, err := e.StartHere(ctx, tx, Execution{ID: n.ID, Org: n.Org, Flow: n.Flow, Version: n.Version, Input: n.Input, Pre: n.Pre})
	if err != nil || n.RunNumber > 0 {
		return n.RunNumber, st, err
	}
	var number int
	err = tx.GetContext(ctx, &number, `
		WITH n AS (UPDATE flows SET executions_started = executions_started + 1 WHERE id = $1 RETURNING executions_started)
		UPDATE flow_executions x SET run_number = n.executions_started FROM n WHERE x.id = $2 RETURNING x.run_number`,
		n.Flow, n.ID)
	return number, st, err
}
