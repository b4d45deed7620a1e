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
// queued in the same transaction.
func (s *Service) StartFlowExecution(ctx context.Context, req platformapi.StartFlowExecutionRequestObject) (platformapi.StartFlowExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	input, err := json.Marshal(req.Body.Input)
	if err != nil {
		return nil, err
	}
	var r row
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := flows.ForExecution(ctx, tx, p, req.Body.FlowId)
		if err != nil {
			return err
		}
		if !f.Valid {
			return httpx.NewError(http.StatusConflict, "invalid_flow",
				"the latest version of the flow has validation errors; read them with GET /api/flows/{id}?include_validation_errors=true")
		}
		if err := credits.Reserve(ctx, tx, p.OrganizationID, 1); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &r, `INSERT INTO flow_executions AS x (organization_id, flow_id, flow_version, status,
			input, run_number, created_by, modified_by) VALUES ($2, $1, $3, 'queued', $4, 0, $5, $6) RETURNING `+columns,
			f.ID, f.Org, f.Version, string(input), p.UserID, p.Actor()); err != nil {
			return err
		}
		if err := s.engine.Start(ctx, tx, run.Execution{ID: r.ID, Org: r.Org, Flow: r.Flow, Version: r.Version, Input: input}); err != nil {
			return err
		}
		// The run number comes last: the flow's counter row is the one thing concurrent starts of a flow
		// share, so its lock is held only for the commit.
		return tx.GetContext(ctx, &r.RunNumber, `
			WITH n AS (UPDATE flows SET executions_started = executions_started + 1 WHERE id = $1 RETURNING executions_started)
			UPDATE flow_executions x SET run_number = n.executions_started FROM n WHERE x.id = $2 RETURNING x.run_number`,
			f.ID, r.ID)
	})
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
