package bulk

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	engine "github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// haltExecutions ends, before a batch changes its jobs, the flow executions still running for the
// window's unfinished jobs: a cancel stops them, a rerun stops and detaches them (the job gets a new
// one), a delete deletes and detaches them. It takes the locks in the engine's order (package
// engine/state; the jobs last, in the batch statement), so that a batch never deadlocks with the
// engine recording an outcome of the same execution; batches of one app run one at a time. The jobs
// do not follow their executions here: the batch records what happens to its jobs itself.
func haltExecutions(ctx context.Context, tx *sqlx.Tx, typ string, t target, w window, a actor) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('bulk:' || $1::text, 0))`, t.App); err != nil {
		return err
	}
	fixed := []any{t.App, t.Org, w.After, w.UpTo, w.Limit}
	where, err := t.compile(len(fixed))
	if err != nil {
		return err
	}
	var ids []uuid.UUID
	if err := tx.SelectContext(ctx, &ids, dbx.CustomPlan+`SELECT flow_execution_id FROM (
		SELECT j.status, j.flow_execution_id FROM jobs j
		WHERE j.app_id = $1 AND j.organization_id = $2 AND j.id > $3 AND j.id <= $4`+scope(typ)+` AND (`+where.SQL+`)
		ORDER BY j.id LIMIT $5) b
		WHERE flow_execution_id IS NOT NULL AND status IN `+unfinishedJobs, append(fixed, where.Args...)...); err != nil || len(ids) == 0 {
		return err
	}
	h := engine.Halt{IDs: ids, Actor: a.ModifiedBy, To: state.ExecFailed, Detach: typ != TypeCancel, Quiet: true}
	switch typ {
	case TypeCancel:
		h.Why = engine.Stopped("canceled with its job by " + a.ModifiedBy)
	case TypeRerun:
		h.Why = engine.Stopped("replaced: its job was resubmitted by " + a.ModifiedBy)
	case TypeDelete:
		h.To = state.ExecDeleted
	}
	_, err = engine.HaltMany(ctx, tx, h)
	return err
}
