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

var noCredits = httpx.NewError(http.StatusPaymentRequired, "insufficient_credits", "the organization has no credits left")

// StartFlowExecution creates an execution of the flow's latest version, queued, with its first tasks
// queued in the same transaction (see Create).
func (s *Service) StartFlowExecution(ctx context.Context, req platformapi.StartFlowExecutionRequestObject) (platformapi.StartFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	input, err := json.Marshal(req.Body.Input)
	if err != nil {
		return nil, err
	}
	// The flow is read and its run number taken before the transaction, as a /v1 submission's is: the
	// number comes from the flow's counter row, which every start of the flow shares, and taken inside
	// the transaction its lock was held until the commit, so concurrent starts of one flow queued on it
	// (see run.TakeRunNumber). What refuses a start is checked first, so a refused start takes no
	// number: the flow (another organization's, invalid, missing) and the credits, which the
	// transaction then reserves for good. The execution's foreign key locks the flow against removal
	// as the read's FOR KEY SHARE did.
	f, err := flows.ForExecution(ctx, s.db, p, req.Body.FlowId)
	if err != nil {
		return nil, err
	}
	if !f.Valid {
		return nil, flows.NotRunnable(ctx, s.db, f)
	}
	if b, err := credits.Get(ctx, s.db, p.OrganizationID); err != nil {
		return nil, err
	} else if b.Remaining() < 1 {
		return nil, noCredits
	}
	number, err := run.TakeRunNumber(ctx, s.db, f.ID)
	if err != nil {
		return nil, err
	}
	var r row
	var st *run.Started
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := credits.Reserve(ctx, tx, p.OrganizationID, 1); err != nil {
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
		return nil, noCredits
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
