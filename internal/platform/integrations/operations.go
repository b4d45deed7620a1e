package integrations

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

const what = "integration"

// CreateIntegration binds a task of one of the organization's flows to one of its credentials. The
// flow is key-share locked and the credential checked in the same transaction, so neither can vanish
// between the check and the insert.
func (s *Service) CreateIntegration(ctx context.Context, req platformapi.CreateIntegrationRequestObject) (platformapi.CreateIntegrationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	r := row{ID: uuid.New(), Org: p.OrganizationID, FlowID: b.FlowId, CredentialID: b.CredentialId,
		Description: b.Description, TaskName: b.TaskName, ModifiedBy: p.Actor()}
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := flows.CheckOwn(ctx, tx, b.FlowId, true); err != nil {
			return err
		}
		if b.CredentialId != nil {
			var ok bool
			err := tx.GetContext(ctx, &ok, `SELECT true FROM credentials WHERE organization_id = $1 AND id = $2
				FOR KEY SHARE`, p.OrganizationID, *b.CredentialId)
			if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
				return httpx.NotFound("credential")
			}
			if err != nil {
				return err
			}
			// A credential the caller may not use is the same 404 as one that does not exist.
			usable, err := credentials.Usable(ctx, tx, p.OrganizationID, p.UserID, []uuid.UUID{*b.CredentialId})
			if err != nil {
				return err
			}
			if !usable[*b.CredentialId] {
				return httpx.NotFound("credential")
			}
		}
		err := insert(ctx, tx, r)
		if errors.Is(err, dbx.ErrConflict) {
			return httpx.NewError(http.StatusConflict, "conflict",
				"the flow's task %q already has an integration; delete it first", b.TaskName)
		}
		if err != nil {
			return err
		}
		r, err = get(ctx, tx, p.OrganizationID, r.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.CreateIntegration201JSONResponse(r.response()), nil
}

// ListIntegrations pages through the organization's integrations, newest first.
func (s *Service) ListIntegrations(ctx context.Context, req platformapi.ListIntegrationsRequestObject) (platformapi.ListIntegrationsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	rows, total, err := list(ctx, s.db, p.OrganizationID, filter{flow: req.Params.FlowId, credential: req.Params.CredentialId},
		pg.Limit, pg.Offset())
	if err != nil {
		return nil, err
	}
	out := platformapi.ListIntegrations200JSONResponse{Integrations: make([]platformapi.IntegrationResponse, 0, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for _, r := range rows {
		out.Integrations = append(out.Integrations, r.response())
	}
	return out, nil
}

// GetIntegration returns one integration; another organization's is the same 404 as a random id.
func (s *Service) GetIntegration(ctx context.Context, req platformapi.GetIntegrationRequestObject) (platformapi.GetIntegrationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.db, p.OrganizationID, req.Id)
	if errors.Is(err, dbx.ErrNotFound) {
		return nil, httpx.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	return platformapi.GetIntegration200JSONResponse(r.response()), nil
}

// DeleteIntegration removes the binding; the flow and the credential stay.
func (s *Service) DeleteIntegration(ctx context.Context, req platformapi.DeleteIntegrationRequestObject) (platformapi.DeleteIntegrationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	ok, err := remove(ctx, s.db, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.NotFound(what)
	}
	return platformapi.DeleteIntegration204Response{}, nil
}
