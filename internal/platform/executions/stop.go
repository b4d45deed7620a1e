package executions

import (
	"context"
	"encoding/json"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// StopFlowExecution stops a running execution without deleting it: it fails with error type stopped,
// and its queued and running attempts are cancelled in the same transaction. The engine starts nothing
// more for it: every step checks the execution's status under its row lock.
func (s *Service) StopFlowExecution(ctx context.Context, req platformapi.StopFlowExecutionRequestObject) (platformapi.StopFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var r row
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		if r, err = visible(ctx, tx, p, req.Id, true); err != nil {
			return err
		}
		if err := mayStop(ctx, tx, p, r); err != nil {
			return err
		}
		switch r.Status {
		case "deleted":
			return httpx.Conflict("the execution is deleted")
		case "completed", "failed", "stale":
			return nil // finished already: nothing to stop
		}
		why, _ := json.Marshal(map[string]any{"type": "stopped", "message": "stopped by " + p.Actor()})
		_, err = tx.ExecContext(ctx, `
			WITH att AS (UPDATE task_executions SET status = 'cancelled', completed_at = now(), updated_at = now(), modified_by = $2
			             WHERE flow_execution_id = $1 AND status IN ('queued', 'running')),
			     tasks AS (UPDATE execution_tasks SET state = 'cancelled', updated_at = now()
			               WHERE flow_execution_id = $1 AND state IN ('waiting', 'ready'))
			UPDATE flow_executions SET status = 'failed', error = $3, finished_at = now(), updated_at = now(), modified_by = $2
			WHERE id = $1`, r.ID, p.Actor(), string(why))
		if err != nil {
			return err
		}
		r, err = visible(ctx, tx, p, req.Id, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := r.response(false)
	if err != nil {
		return nil, err
	}
	return platformapi.StopFlowExecution200JSONResponse(plain(out)), nil
}
