package executions

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
)

// Spec is an execution to create: of a version of a flow, in an organization, for whom, and (for the
// /v1 half) for which job.
type Spec struct {
	Org, Flow uuid.UUID
	Version   int
	Input     json.RawMessage
	CreatedBy *uuid.UUID
	Actor     string
	// JobApp and Job name the /v1 job the execution runs, if any.
	JobApp *uuid.UUID
	Job    *int64
	// ID, when set, is the execution's id, chosen beforehand: the job (Job) was written naming it
	// already. Otherwise the execution gets a new id, and Create names it to its job.
	ID uuid.UUID
	// RunNumber, when not 0, was taken apart from the transaction (TakeRunNumber, RunNumber); otherwise
	// Create takes one from the flow's counter at the end of the transaction.
	RunNumber int
	// Pre holds its first tasks' outcomes, run before the transaction by the engine's Prepare.
	Pre *run.Prepared
}

// Create starts an execution in tx through the engine (see run.Engine.Create) and names it to its job,
// if any. The caller calls Run on the returned value once tx has committed (Drop if it did not).
func Create(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec) (row, *run.Started, error) {
	var r row
	named := n.ID != uuid.Nil
	if !named {
		n.ID = uuid.Must(uuid.NewV7()) // time-ordered, as the column's default (migration 00103)
	}
	number, st, err := engine.Create(ctx, tx, run.NewExecution{ID: n.ID, Org: n.Org, Flow: n.Flow, Version: n.Version,
		Input: n.Input, CreatedBy: n.CreatedBy, Actor: n.Actor, JobApp: n.JobApp, Job: n.Job, RunNumber: n.RunNumber, Pre: n.Pre},
		run.Into{Columns: columns, Dest: &r})
	if err != nil {
		return r, st, err
	}
	r.RunNumber = number
	if n.Job != nil && !named {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET flow_execution_id = $3 WHERE app_id = $1 AND id = $2`,
			n.JobApp, *n.Job, r.ID); err != nil {
			return r, st, err
		}
	}
	return r, st, nil
}

// ForJob starts the execution of a /v1 job in tx: of n.Version when the caller chose it (with
// JobVersion, before the transaction), otherwise of the flow's latest published version (its latest
// valid one while none is published), in the job's organization. It returns the execution's id, or
// false when the flow has no version that can run.
func ForJob(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec, app uuid.UUID, job int64) (uuid.UUID, *run.Started, bool, error) {
	if n.Version == 0 {
		v, ok, err := JobVersion(ctx, tx, n.Flow)
		if err != nil || !ok {
			return uuid.Nil, nil, false, err
		}
		n.Version = v
	}
	n.JobApp, n.Job = &app, &job
	r, st, err := Create(ctx, tx, engine, n)
	return r.ID, st, err == nil, err
}

// JobVersion is the version of a flow that /v1 jobs run: its latest published version, or its latest
// valid one while none is published; false when it has no valid version.
func JobVersion(ctx context.Context, db dbx.DBTX, flow uuid.UUID) (int, bool, error) {
	var versions []int
	err := db.SelectContext(ctx, &versions, `SELECT version FROM flow_versions WHERE flow_id = $1 AND valid
		ORDER BY status = 'published' DESC, version DESC LIMIT 1`, flow)
	if err != nil || len(versions) == 0 {
		return 0, false, err
	}
	return versions[0], true, nil
}
