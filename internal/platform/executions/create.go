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
	// RunNumber, when not 0, was taken with TakeRunNumber before the transaction; otherwise Create takes
	// one from the flow's counter at the end of the transaction.
	RunNumber int
}

// Create inserts a queued execution, lays out its tasks and queues its first ones in tx (and names it to
// its job, if any), then takes its run number. The run number comes last: the flow's counter row is the one thing concurrent starts
// of a flow share, so its lock is held only for the commit.
//
// Its first tasks are claimed for this process where it has room: the caller calls Run on the returned
// value once tx has committed (Drop if it did not), and they start at once (see run.Engine.StartHere).
func Create(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec) (row, *run.Started, error) {
	var r row
	if len(n.Input) == 0 {
		n.Input = json.RawMessage(`{}`)
	}
	named := n.ID != uuid.Nil
	if !named {
		n.ID = uuid.New()
	}
	if err := tx.GetContext(ctx, &r, `INSERT INTO flow_executions AS x (id, organization_id, flow_id, flow_version, status,
		input, run_number, created_by, modified_by, job_app_id, job_id) VALUES ($10, $2, $1, $3, 'queued', $4, $9, $5, $6, $7, $8)
		RETURNING `+columns, n.Flow, n.Org, n.Version, string(n.Input), n.CreatedBy, n.Actor, n.JobApp, n.Job, n.RunNumber, n.ID); err != nil {
		return r, nil, err
	}
	st, err := engine.StartHere(ctx, tx, run.Execution{ID: r.ID, Org: r.Org, Flow: r.Flow, Version: r.Version, Input: n.Input})
	if err != nil {
		return r, st, err
	}
	if n.Job != nil && !named {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET flow_execution_id = $3 WHERE app_id = $1 AND id = $2`,
			n.JobApp, *n.Job, r.ID); err != nil {
			return r, st, err
		}
	}
	if n.RunNumber > 0 {
		return r, st, nil
	}
	err = tx.GetContext(ctx, &r.RunNumber, `
		WITH n AS (UPDATE flows SET executions_started = executions_started + 1 WHERE id = $1 RETURNING executions_started)
		UPDATE flow_executions x SET run_number = n.executions_started FROM n WHERE x.id = $2 RETURNING x.run_number`,
		n.Flow, r.ID)
	return r, st, err
}

// ForJob starts the execution of a /v1 job in tx: of the flow's latest published version (its latest
// valid one while none is published), in the job's organization. It returns the execution's id, or
// false when the flow has no version that can run.
func ForJob(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec, app uuid.UUID, job int64) (uuid.UUID, *run.Started, bool, error) {
	v, ok, err := JobVersion(ctx, tx, n.Flow)
	if err != nil || !ok {
		return uuid.Nil, nil, false, err
	}
	n.Version, n.JobApp, n.Job = v, &app, &job
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
