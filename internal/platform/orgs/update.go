package orgs

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
)

// errOwnOrganization keeps platform staff from locking themselves out along with their organization.
var errOwnOrganization = httpx.NewError(http.StatusConflict, "cannot_deactivate_own_organization",
	"you cannot deactivate your own organization")

// AdminUpdateOrganization renames, deactivates or reactivates an organization (backoffice only).
func (s *Service) AdminUpdateOrganization(ctx context.Context, req platformapi.AdminUpdateOrganizationRequestObject) (platformapi.AdminUpdateOrganizationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	body := req.Body
	deactivate := body.IsActive != nil && !*body.IsActive
	if deactivate && req.Id == p.OrganizationID {
		return nil, errOwnOrganization
	}
	var name *string
	if body.Name != nil {
		n, err := cleanName(*body.Name)
		if err != nil {
			return nil, err
		}
		name = &n
	}
	var r Row
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &r, `UPDATE organizations
			SET name = coalesce($2, name), is_active = coalesce($3, is_active), modified_at = now(), modified_by = $4
			WHERE id = $1 RETURNING `+columns, req.Id, name, body.IsActive, p.Actor())
		if err != nil {
			if name != nil {
				err = nameTaken(err, *name)
			}
			return notFound(dbx.Translate(err))
		}
		if deactivate {
			return endSessions(ctx, tx, r.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return platformapi.AdminUpdateOrganization200JSONResponse(r.Response()), nil
}

// AdminDeactivateOrganization deactivates an organization (backoffice only). An organization that is
// already deactivated is returned unchanged, so retrying the call is harmless.
func (s *Service) AdminDeactivateOrganization(ctx context.Context, req platformapi.AdminDeactivateOrganizationRequestObject) (platformapi.AdminDeactivateOrganizationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if req.Id == p.OrganizationID {
		return nil, errOwnOrganization
	}
	var r Row
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		r, err = deactivate(ctx, tx, req.Id, p.Actor())
		return notFound(err)
	})
	if err != nil {
		return nil, err
	}
	return platformapi.AdminDeactivateOrganization200JSONResponse(r.Response()), nil
}

// deactivate switches an active organization off and ends its sessions; an inactive one is left as it is.
func deactivate(ctx context.Context, tx *sqlx.Tx, id uuid.UUID, actor string) (Row, error) {
	var r Row
	err := tx.GetContext(ctx, &r, `UPDATE organizations SET is_active = false, modified_at = now(), modified_by = $2
		WHERE id = $1 AND is_active RETURNING `+columns, id, actor)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return Load(ctx, tx, id)
	}
	if err != nil {
		return r, err
	}
	return r, endSessions(ctx, tx, id)
}
