package users

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

// AdminCreateUser creates a user in the organization named by the body, where the field is required.
func (s *Service) AdminCreateUser(ctx context.Context, req platformapi.AdminCreateUserRequestObject) (platformapi.AdminCreateUserResponseObject, error) {
	if req.Body.OrganizationId == nil {
		return nil, httpx.Invalid([]any{"body", "organization_id"}, "missing", "is required")
	}
	u, err := s.create(ctx, *req.Body.OrganizationId, *req.Body)
	if err != nil {
		return nil, err
	}
	return platformapi.AdminCreateUser201JSONResponse(u), nil
}

// AdminCreateOrganizationUser creates a user in the organization of the path; the body's
// organization_id is ignored, as the contract says.
func (s *Service) AdminCreateOrganizationUser(ctx context.Context, req platformapi.AdminCreateOrganizationUserRequestObject) (platformapi.AdminCreateOrganizationUserResponseObject, error) {
	u, err := s.create(ctx, req.Id, *req.Body)
	if err != nil {
		return nil, err
	}
	return platformapi.AdminCreateOrganizationUser201JSONResponse(u), nil
}

// create adds a user to org and, unless it starts deactivated, e-mails the invitation in the same
// transaction, so a user never exists without the mail that lets it in (nor a mail without the user).
func (s *Service) create(ctx context.Context, org uuid.UUID, body platformapi.CreateUserRequest) (platformapi.UserResponse, error) {
	p := auth.MustFromContext(ctx)
	if !p.IsBackoffice() && org != p.OrganizationID {
		return platformapi.UserResponse{}, httpx.NotFound("organization")
	}
	role := auth.Role(body.Role)
	if role == auth.RoleBackoffice && !p.IsBackoffice() {
		return platformapi.UserResponse{}, httpx.Forbidden("only backoffice may create users with the backoffice role")
	}
	first, err := cleanName("first_name", body.FirstName)
	if err != nil {
		return platformapi.UserResponse{}, err
	}
	last, err := cleanName("last_name", body.LastName)
	if err != nil {
		return platformapi.UserResponse{}, err
	}
	active := body.IsActive == nil || *body.IsActive

	var u UserRow
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		// The share lock keeps the organization from being deactivated while its user is being added.
		var orgActive bool
		err := dbx.Translate(tx.GetContext(ctx, &orgActive, `SELECT is_active FROM organizations WHERE id = $1 FOR SHARE`, org))
		if errors.Is(err, dbx.ErrNotFound) {
			return httpx.NotFound("organization")
		}
		if err != nil {
			return err
		}
		if !orgActive {
			return httpx.NewError(http.StatusConflict, "organization_inactive",
				"the organization is deactivated; reactivate it before adding users")
		}
		err = tx.GetContext(ctx, &u, `INSERT INTO users AS u (organization_id, email, first_name, last_name, role, is_active, modified_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+SelectColumns,
			org, string(body.Email), first, last, string(role), active, p.Actor())
		if err != nil {
			return emailTaken(err)
		}
		if !active {
			return nil
		}
		return s.sendLink(ctx, tx, p, u, auth.LinkInvite)
	})
	if err != nil {
		return platformapi.UserResponse{}, err
	}
	return ToResponse(u), nil
}
