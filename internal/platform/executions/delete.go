package executions

import (
	"context"

	"github.com/google/uuid"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/state"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// DeleteFlowExecution soft-deletes an execution and stops it: its queued and running attempts are
// cancelled in the same transaction, and the engine starts nothing more for it (every step of the
// engine checks the execution's status under its row lock).
func (s *Service) DeleteFlowExecution(ctx context.Context, req platformapi.DeleteFlowExecutionRequestObject) (platformapi.DeleteFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		// Read, not locked: HaltMany takes the locks in the engine's order, and ends the execution only
		// if it is not deleted meanwhile.
		r, err := visible(ctx, tx, p, req.Id)
		if err != nil {
			return err
		}
		if r.Status == "deleted" {
			return nil
		}
		if err := mayStop(ctx, tx, p, r); err != nil {
			return err
		}
		_, err = run.HaltMany(ctx, tx, run.Halt{IDs: []uuid.UUID{r.ID}, To: state.ExecDeleted, Actor: p.Actor()})
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
