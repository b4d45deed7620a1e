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
)

// StopFlowExecution stops a running execution without deleting it: it fails with error type stopped,
// and its queued and running attempts are cancelled in the same transaction. The engine starts nothing
// more for it: every step checks the execution's status under its row lock.
func (s *Service) StopFlowExecution(ctx context.Context, req platformapi.StopFlowExecutionRequestObject) (platformapi.StopFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var r row
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		// Read, not locked: HaltMany takes the locks in the engine's order, and stops the execution only
		// if it still runs then.
		if r, err = visible(ctx, tx, p, req.Id); err != nil {
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
		if _, err := run.HaltMany(ctx, tx, run.Halt{IDs: []uuid.UUID{r.ID}, To: state.ExecFailed, Why: run.Stopped("stopped by " + p.Actor()),
			Actor: p.Actor()}); err != nil {
			return err
		}
		r, err = visible(ctx, tx, p, req.Id)
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
