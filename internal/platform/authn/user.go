package authn

import (
	"context"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
)

// account is a user as the authentication service sees it.
type account struct {
	ID               uuid.UUID  `db:"id"`
	OrganizationID   uuid.UUID  `db:"organization_id"`
	Email            string     `db:"email"`
	FirstName        string     `db:"first_name"`
	LastName         string     `db:"last_name"`
	Role             auth.Role  `db:"role"`
	PasswordHash     *string    `db:"password_hash"`
	EmailConfirmedAt *time.Time `db:"email_confirmed_at"`
	LastLoginAt      *time.Time `db:"last_login_at"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
}

const accountColumns = `u.id, u.organization_id, u.email, u.first_name, u.last_name, u.role, u.password_hash,
	u.email_confirmed_at, u.last_login_at, u.created_at, u.updated_at`

func loadAccount(ctx context.Context, db dbx.DBTX, id uuid.UUID) (account, error) {
	var a account
	err := db.GetContext(ctx, &a, `SELECT `+accountColumns+` FROM users u WHERE u.id = $1`, id)
	return a, dbx.Translate(err)
}

// gotrueUser renders an account in the GoTrue user format existing clients parse.
func (a account) gotrueUser() platformapi.AuthUser {
	first, last := a.FirstName, a.LastName
	return platformapi.AuthUser{
		Id:               a.ID,
		Aud:              platformapi.AuthUserAudAuthenticated,
		Role:             platformapi.AuthUserRoleAuthenticated,
		Email:            openapi_types.Email(a.Email),
		EmailConfirmedAt: a.EmailConfirmedAt,
		LastSignInAt:     a.LastLoginAt,
		CreatedAt:        a.CreatedAt,
		UpdatedAt:        a.UpdatedAt,
		AppMetadata: platformapi.AuthUserAppMetadata{
			Provider:       "email",
			Providers:      []string{"email"},
			OrganizationId: a.OrganizationID,
			Role:           platformapi.UserRole(a.Role),
		},
		UserMetadata: platformapi.AuthUserMetadata{FirstName: &first, LastName: &last},
	}
}

// session signs an access token for a session and renders the reply of the token and verify routes.
func (s *Service) session(ctx context.Context, a account, sess auth.Session) (platformapi.AuthSession, error) {
	token, exp, err := s.d.Tokens.Issue(ctx, auth.AccessClaims{UserID: a.ID, OrganizationID: a.OrganizationID,
		SessionID: sess.ID, Email: a.Email})
	if err != nil {
		return platformapi.AuthSession{}, err
	}
	return platformapi.AuthSession{
		AccessToken:  token,
		TokenType:    platformapi.Bearer,
		ExpiresIn:    int(s.d.Tokens.TTL().Seconds()),
		ExpiresAt:    exp.Unix(),
		RefreshToken: sess.RefreshToken,
		User:         a.gotrueUser(),
	}, nil
}
