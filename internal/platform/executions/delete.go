package executions

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// DeleteFlowExecution soft-deletes an execution and stops it: its queued and running attempts are
// cancelled in the same transaction, and the engine starts nothing more for it (every step of the
// engine checks the execution's status under its row lock).
func (s *Service) DeleteFlowExecution(ctx context.Context, req platformapi.DeleteFlowExecutionRequestObject) (platformapi.DeleteFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		r, err := visible(ctx, tx, p, req.Id, true)
		if err != nil {
			return err
		}
		if r.Status == "deleted" {
			return nil
		}
		if err := mayStop(ctx, tx, p, r); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `
			WITH att AS (UPDATE task_executions SET status = 'cancelled', completed_at = now(), updated_at = now(), modified_by = $2
			             WHERE flow_execution_id = $1 AND status IN ('queued', 'running')),
			     tasks AS (UPDATE execution_tasks SET state = 'cancelled', updated_at = now()
			               WHERE flow_execution_id = $1 AND state IN ('waiting', 'ready'))
			UPDATE flow_executions SET status = 'deleted', deleted_at = now(), updated_at = now(), modified_by = $2
			WHERE id = $1`, r.ID, p.Actor())
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.DeleteFlowExecution204Response{}, nil
}

// mayStop: the user who started the execution, callers who may change its flow and service accounts
// may stop or delete an execution.
func mayStop(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, r row) error {
	if p.Role == auth.RoleIntegration || (r.CreatedBy != nil && *r.CreatedBy == p.UserID) {
		return nil
	}
	ok, err := flows.Changeable(ctx, tx, p, r.Flow)
	if err != nil || ok {
		return err
	}
	return httpx.Forbidden("only the user who started the execution, callers who may change its flow and service accounts may stop or delete it")
}
