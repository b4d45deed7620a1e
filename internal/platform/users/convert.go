package users

import (
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
)

// UserRow is a user as stored, with the facts its status is derived from. The password hash itself is
// never loaded for a response: only whether one is set.
type UserRow struct {
	ID               uuid.UUID  `db:"id"`
	OrganizationID   uuid.UUID  `db:"organization_id"`
	Email            string     `db:"email"`
	FirstName        string     `db:"first_name"`
	LastName         string     `db:"last_name"`
	Role             auth.Role  `db:"role"`
	IsActive         bool       `db:"is_active"`
	IsServiceAccount bool       `db:"is_service_account"`
	HasPassword      bool       `db:"has_password"`
	LastLoginAt      *time.Time `db:"last_login_at"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	ModifiedBy       string     `db:"modified_by"`
	WorkerID         int64      `db:"worker_id"`
}

// SelectColumns selects a UserRow from a query that names the users table u, as in
// `SELECT ` + SelectColumns + ` FROM users u WHERE …`, so that it can be joined with other tables.
const SelectColumns = `u.id, u.organization_id, u.email, u.first_name, u.last_name, u.role, u.is_active,
	u.is_service_account, (u.password_hash IS NOT NULL) AS has_password, u.last_login_at, u.created_at,
	u.updated_at, u.modified_by, u.worker_id`

// Status derives the account state: deactivated while is_active is false, invited while a person has
// not set a password yet (service accounts never have one), active otherwise.
func (r UserRow) Status() platformapi.UserStatus {
	switch {
	case !r.IsActive:
		return platformapi.UserStatusDeactivated
	case !r.HasPassword && !r.IsServiceAccount:
		return platformapi.UserStatusInvited
	}
	return platformapi.UserStatusActive
}

// ToResponse renders a user row in the contract's shape.
func ToResponse(r UserRow) platformapi.UserResponse {
	return platformapi.UserResponse{
		Id:             r.ID,
		OrganizationId: r.OrganizationID,
		Email:          openapi_types.Email(r.Email),
		FirstName:      r.FirstName,
		LastName:       r.LastName,
		Role:           platformapi.UserRole(r.Role),
		IsActive:       r.IsActive,
		Status:         r.Status(),
		LastLoginAt:    r.LastLoginAt,
		CreatedAt:      r.CreatedAt,
		UpdatedAt:      r.UpdatedAt,
		ModifiedBy:     r.ModifiedBy,
		WorkerId:       r.WorkerID,
	}
}

// ToProfile renders a user row with its organization as the profile of /api/profile/me. The profile
// repeats every field of UserResponse (profile_test.go checks that none is left out, so that a field
// added to users later cannot silently answer its zero value here).
func ToProfile(r UserRow, org platformapi.OrganizationResponse) platformapi.ProfileResponse {
	u := ToResponse(r)
	return platformapi.ProfileResponse{
		Id:             u.Id,
		OrganizationId: u.OrganizationId,
		Email:          u.Email,
		FirstName:      u.FirstName,
		LastName:       u.LastName,
		Role:           u.Role,
		IsActive:       u.IsActive,
		Status:         u.Status,
		LastLoginAt:    u.LastLoginAt,
		CreatedAt:      u.CreatedAt,
		UpdatedAt:      u.UpdatedAt,
		ModifiedBy:     u.ModifiedBy,
		WorkerId:       u.WorkerId,
		Organization:   org,
	}
}
