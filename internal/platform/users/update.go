package users

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// AdminGetUser returns a user of the caller's organization, or of any organization to backoffice.
func (s *Service) AdminGetUser(ctx context.Context, req platformapi.AdminGetUserRequestObject) (platformapi.AdminGetUserResponseObject, error) {
	u, err := loadUser(ctx, s.d.DB, req.Id, scope(auth.MustFromContext(ctx)), false)
	if err != nil {
		return nil, err
	}
	return platformapi.AdminGetUser200JSONResponse(ToResponse(u)), nil
}

// AdminUpdateUser changes names, role or the active flag. The e-mail is the sign-in name and the
// contract has no field for it, so it never changes here.
func (s *Service) AdminUpdateUser(ctx context.Context, req platformapi.AdminUpdateUserRequestObject) (platformapi.AdminUpdateUserResponseObject, error) {
	p := auth.MustFromContext(ctx)
	body := req.Body
	first, err := optionalName("first_name", body.FirstName)
	if err != nil {
		return nil, err
	}
	last, err := optionalName("last_name", body.LastName)
	if err != nil {
		return nil, err
	}
	var role *string
	var u UserRow
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		cur, err := loadUser(ctx, tx, req.Id, scope(p), true)
		if err != nil {
			return err
		}
		if body.Role != nil && auth.Role(*body.Role) != cur.Role {
			next := auth.Role(*body.Role)
			if !p.IsBackoffice() && (next == auth.RoleBackoffice || cur.Role == auth.RoleBackoffice) {
				return httpx.Forbidden("only backoffice may grant or change the backoffice role")
			}
			if cur.ID == p.UserID {
				return errSelf
			}
			r := string(next)
			role = &r
		}
		switchOff := body.IsActive != nil && !*body.IsActive
		if switchOff && cur.ID == p.UserID {
			return errSelf
		}
		err = tx.GetContext(ctx, &u, `UPDATE users u SET first_name = coalesce($2, first_name),
			last_name = coalesce($3, last_name), role = coalesce($4, role), is_active = coalesce($5, is_active),
			modified_by = $6
			WHERE id = $1 RETURNING `+SelectColumns, cur.ID, first, last, role, body.IsActive, p.Actor())
		if err != nil {
			return err
		}
		// Only a real deactivation ends sessions; an inactive user has none left to end.
		if switchOff && cur.IsActive {
			return auth.RevokeUserAccess(ctx, tx, u.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return platformapi.AdminUpdateUser200JSONResponse(ToResponse(u)), nil
}

// AdminDeactivateUser switches a user off: its sessions end and its pending links stop working. Its API
// keys are kept (the authenticator refuses them while the user is inactive), so a reactivation restores
// them. A user that is already deactivated is returned unchanged.
func (s *Service) AdminDeactivateUser(ctx context.Context, req platformapi.AdminDeactivateUserRequestObject) (platformapi.AdminDeactivateUserResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var u UserRow
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var err error
		if u, err = loadUser(ctx, tx, req.Id, scope(p), true); err != nil {
			return err
		}
		if u.ID == p.UserID {
			return errSelf
		}
		if !u.IsActive {
			return nil
		}
		err = tx.GetContext(ctx, &u, `UPDATE users u SET is_active = false, modified_by = $2
			WHERE id = $1 RETURNING `+SelectColumns, u.ID, p.Actor())
		if err != nil {
			return err
		}
		return auth.RevokeUserAccess(ctx, tx, u.ID)
	})
	if err != nil {
		return nil, err
	}
	return platformapi.AdminDeactivateUser200JSONResponse(ToResponse(u)), nil
}
