package run

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// Verbs over all the executions of one flow, for the flows service: how many still run, marking the
// finished ones stale when the definition changes, and deleting them with their flow.

// ActiveOf counts the executions of a flow that have not finished.
func ActiveOf(ctx context.Context, db dbx.DBTX, flow uuid.UUID) (int, error) {
	var n int
	err := db.GetContext(ctx, &n, `SELECT count(*) FROM flow_executions WHERE flow_id = $1 AND deleted_at IS NULL
		AND status IN `+state.List(state.ExecActive), flow)
	return n, err
}

// MarkStale marks stale the finished executions of a flow that ran a version before the given one: the
// definition they ran has changed since (Document 2 §3.1). Running ones finish on their own version.
func MarkStale(ctx context.Context, tx *sqlx.Tx, flow uuid.UUID, before int, actor string) error {
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'stale', updated_at = now(), modified_by = $3
		WHERE flow_id = $1 AND flow_version < $2 AND status IN `+state.List(state.ExecFinished)+` AND deleted_at IS NULL`,
		flow, before, actor)
	return err
}

// FinishedBefore are the finished executions of a flow that ran a version before the given one, oldest
// first: those a definition change with reexecute runs again (see Rerun).
func FinishedBefore(ctx context.Context, tx *sqlx.Tx, flow uuid.UUID, before int) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := tx.SelectContext(ctx, &ids, `SELECT id FROM flow_executions WHERE flow_id = $1 AND flow_version < $2
		AND status IN `+state.List(state.ExecFinished)+` AND deleted_at IS NULL ORDER BY created_at`, flow, before)
	return ids, err
}

// DeleteOfFlow marks deleted every execution of a flow being deleted; the caller has checked that none
// is active (ActiveOf), so no attempt of theirs is left to cancel. Their rows stay: usage records refer
// to them.
func DeleteOfFlow(ctx context.Context, tx *sqlx.Tx, flow uuid.UUID, actor string) error {
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'deleted', deleted_at = now(), updated_at = now(),
		modified_by = $2 WHERE flow_id = $1 AND deleted_at IS NULL`, flow, actor)
	return err
}
