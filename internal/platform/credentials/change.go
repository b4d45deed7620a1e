package credentials

import (
	"context"
	"errors"
	"net/http"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// UpdateCredential renames a credential, changes its type or replaces its whole secret. The provider
// never changes, so a new type or secret is checked against the provider the credential already has.
func (s *Service) UpdateCredential(ctx context.Context, req platformapi.UpdateCredentialRequestObject) (platformapi.UpdateCredentialResponseObject, error) {
	p := auth.MustFromContext(ctx)
	body := req.Body
	var out row
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		cur, err := lockOwn(ctx, tx, p, req.Id)
		if err != nil {
			return err
		}
		prov := byName[platformapi.ProviderApiEnum(cur.Provider)]
		c := change{name: body.Name, actor: p.Actor(), shared: body.Shared, domains: domainsOf(body.AllowedDomains)}
		if body.CredentialType != nil {
			if err := checkType(prov, *body.CredentialType); err != nil {
				return err
			}
			t := string(*body.CredentialType)
			c.credType = &t
		}
		if body.Data != nil {
			if err := checkData(prov, *body.Data); err != nil {
				return err
			}
			if c.sealed, err = s.seal(p.OrganizationID, cur.ID, *body.Data); err != nil {
				return err
			}
		}
		out, err = update(ctx, tx, p.OrganizationID, cur.ID, c)
		if errors.Is(err, dbx.ErrConflict) {
			return duplicate()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.UpdateCredential200JSONResponse(out.response()), nil
}

// DeleteCredential deletes a credential and its sealed secret. Nothing references credentials yet:
// integrations and document files will, with foreign keys that refuse the delete, and that refusal is
// answered here as 409 in_use, so they only need their ON DELETE RESTRICT reference to be covered.
func (s *Service) DeleteCredential(ctx context.Context, req platformapi.DeleteCredentialRequestObject) (platformapi.DeleteCredentialResponseObject, error) {
	p := auth.MustFromContext(ctx)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if _, err := lockOwn(ctx, tx, p, req.Id); err != nil {
			return err
		}
		err := remove(ctx, tx, p.OrganizationID, req.Id)
		if errors.Is(err, dbx.ErrReferenced) {
			return httpx.NewError(http.StatusConflict, "in_use",
				"the credential is used by an integration or a document file; delete those first")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.DeleteCredential204Response{}, nil
}
