package executions

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// StartFlowExecution creates an execution of the flow's latest version, queued, with its first tasks
// queued in the same transaction (see Create).
func (s *Service) StartFlowExecution(ctx context.Context, req platformapi.StartFlowExecutionRequestObject) (platformapi.StartFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	input, err := json.Marshal(req.Body.Input)
	if err != nil {
		return nil, err
	}
	var r row
	var st *run.Started
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := flows.ForExecution(ctx, tx, p, req.Body.FlowId)
		if err != nil {
			return err
		}
		if !f.Valid {
			return flows.NotRunnable(ctx, tx, f)
		}
		if err := credits.Reserve(ctx, tx, p.OrganizationID, 1); err != nil {
			return err
		}
		// The number is taken now that the start is sure, on a connection of its own, so that concurrent
		// starts of the flow do not hold its counter row until they commit (see run.RunNumber).
		number, err := s.engine.RunNumber(ctx, f.ID)
		if err != nil {
			return err
		}
		r, st, err = Create(ctx, tx, s.engine, Spec{Org: f.Org, Flow: f.ID, Version: f.Version, Input: input,
			CreatedBy: &p.UserID, Actor: p.Actor(), RunNumber: number})
		return err
	})
	if err != nil {
		st.Drop()
	} else {
		st.Run()
	}
	if errors.Is(err, credits.ErrNoCredits) {
		return nil, httpx.NewError(http.StatusPaymentRequired, "insufficient_credits", "the organization has no credits left")
	}
	if err != nil {
		return nil, err
	}
	out, err := r.response(false)
	if err != nil {
		return nil, err
	}
	return platformapi.StartFlowExecution201JSONResponse(plain(out)), nil
}
