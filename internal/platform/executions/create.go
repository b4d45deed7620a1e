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
}

// Create inserts a queued execution, lays out its tasks and queues its first ones in tx (and names it to
// its job, if any), then takes its run number. The run number comes last: the flow's counter row is the one thing concurrent starts
// of a flow share, so its lock is held only for the commit.
func Create(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec) (row, error) {
	var r row
	if len(n.Input) == 0 {
		n.Input = json.RawMessage(`{}`)
	}
	if err := tx.GetContext(ctx, &r, `INSERT INTO flow_executions AS x (organization_id, flow_id, flow_version, status,
		input, run_number, created_by, modified_by, job_app_id, job_id) VALUES ($2, $1, $3, 'queued', $4, 0, $5, $6, $7, $8)
		RETURNING `+columns, n.Flow, n.Org, n.Version, string(n.Input), n.CreatedBy, n.Actor, n.JobApp, n.Job); err != nil {
		return r, err
	}
	if err := engine.Start(ctx, tx, run.Execution{ID: r.ID, Org: r.Org, Flow: r.Flow, Version: r.Version, Input: n.Input}); err != nil {
		return r, err
	}
	if n.Job != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET flow_execution_id = $3 WHERE app_id = $1 AND id = $2`,
			n.JobApp, *n.Job, r.ID); err != nil {
			return r, err
		}
	}
	err := tx.GetContext(ctx, &r.RunNumber, `
		WITH n AS (UPDATE flows SET executions_started = executions_started + 1 WHERE id = $1 RETURNING executions_started)
		UPDATE flow_executions x SET run_number = n.executions_started FROM n WHERE x.id = $2 RETURNING x.run_number`,
		n.Flow, r.ID)
	return r, err
}

// ForJob starts the execution of a /v1 job in tx: of the flow's latest published version (its latest
// valid one while none is published), in the job's organization. It returns the execution's id, or
// false when the flow has no version that can run.
func ForJob(ctx context.Context, tx *sqlx.Tx, engine *run.Engine, n Spec, app uuid.UUID, job int64) (uuid.UUID, bool, error) {
	v, ok, err := JobVersion(ctx, tx, n.Flow)
	if err != nil || !ok {
		return uuid.Nil, false, err
	}
	n.Version, n.JobApp, n.Job = v, &app, &job
	r, err := Create(ctx, tx, engine, n)
	return r.ID, err == nil, err
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
