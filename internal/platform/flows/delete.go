package flows

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
)

// DeleteFlow removes a flow with its versions, views and invitations and soft-deletes its finished
// executions; a flow that still runs or that apps are bound to is kept (409).
func (s *Service) DeleteFlow(ctx context.Context, req platformapi.DeleteFlowRequestObject) (platformapi.DeleteFlowResponseObject, error) {
	c := callerOf(ctx)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := visibleFlow(ctx, tx, c, req.Id, true)
		if err != nil {
			return err
		}
		if !f.administrable(c) {
			return httpx.Forbidden("only the flow's creator and administrators of its organization may delete it")
		}
		running, err := run.ActiveOf(ctx, tx, f.ID)
		if err != nil {
			return err
		}
		if running > 0 {
			return httpx.Conflict("the flow has %d executions that have not finished; wait for them or delete them first", running)
		}
		var apps int
		if err := tx.GetContext(ctx, &apps, `SELECT count(*) FROM apps WHERE api_id = $1`, f.ID); err != nil {
			return err
		}
		if apps > 0 {
			return httpx.Conflict("%d apps of the /v1 interface are instances of this flow; bind them to another flow or delete them first", apps)
		}
		// The flow row stays, marked deleted: its executions (and their usage records) keep referring to it.
		if err := run.DeleteOfFlow(ctx, tx, f.ID, c.actor); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			WITH invites AS (DELETE FROM flow_invitations WHERE flow_id = $1),
			     versions AS (DELETE FROM flow_versions WHERE flow_id = $1)
			UPDATE flows SET deleted_at = now(), updated_at = now(), modified_by = $2 WHERE id = $1`, f.ID, c.actor)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.DeleteFlow204Response{}, nil
}
