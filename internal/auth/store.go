package auth

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

var errNoPrincipal = errors.New("no usable principal")

type principalRow struct {
	UserID         uuid.UUID `db:"user_id"`
	OrganizationID uuid.UUID `db:"organization_id"`
	Role           Role      `db:"role"`
	Email          string    `db:"email"`
	ServiceAccount bool      `db:"is_service_account"`
}

func (r principalRow) principal(kind CredentialKind) *Principal {
	return &Principal{UserID: r.UserID, OrganizationID: r.OrganizationID, Role: r.Role, Email: r.Email,
		ServiceAccount: r.ServiceAccount, Credential: kind}
}

// principalByToken loads the user of verified claims. Tokens of this server must name a live session
// of that user in that organization; tokens of an external issuer name only the user.
func principalByToken(ctx context.Context, db *sqlx.DB, c *AccessClaims) (*Principal, error) {
	var r principalRow
	var err error
	if c.External {
		err = db.GetContext(ctx, &r, `
			SELECT u.id AS user_id, u.organization_id, u.role, u.email, u.is_service_account
			FROM users u JOIN organizations o ON o.id = u.organization_id
			WHERE u.id = $1 AND u.is_active AND o.is_active`, c.UserID)
	} else {
		err = db.GetContext(ctx, &r, `
			SELECT u.id AS user_id, u.organization_id, u.role, u.email, u.is_service_account
			FROM users u
			JOIN organizations o ON o.id = u.organization_id
			JOIN auth_sessions s ON s.id = $2 AND s.user_id = u.id AND s.revoked_at IS NULL
			WHERE u.id = $1 AND u.organization_id = $3 AND u.is_active AND o.is_active`,
			c.UserID, c.SessionID, c.OrganizationID)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoPrincipal
	}
	if err != nil {
		return nil, err
	}
	p := r.principal(CredentialJWT)
	p.SessionID = c.SessionID
	return p, nil
}

// apiKeyRow is the owner of an unrevoked API key as the database has it.
type apiKeyRow struct {
	principalRow
	KeyID uuid.UUID `db:"key_id"`
	// LastUsedAt is when the key's use was last recorded.
	LastUsedAt *time.Time `db:"last_used_at"`
}

// apiKeyOwner loads the owner of an unrevoked key of an active user in an active organization.
func apiKeyOwner(ctx context.Context, db *sqlx.DB, hash []byte) (apiKeyRow, error) {
	var r apiKeyRow
	err := db.GetContext(ctx, &r, `
		SELECT k.id AS key_id, u.id AS user_id, u.organization_id, u.role, u.email, u.is_service_account, k.last_used_at
		FROM api_keys k
		JOIN users u ON u.id = coalesce(k.user_id, k.service_account_id)
		JOIN organizations o ON o.id = k.organization_id
		WHERE k.token_hash = $1 AND k.revoked_at IS NULL AND u.is_active AND o.is_active`, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return apiKeyRow{}, errNoPrincipal
	}
	return r, err
}

// recordKeyUse sets the key's last use to now.
func recordKeyUse(ctx context.Context, db *sqlx.DB, keyID uuid.UUID) error {
	_, err := db.ExecContext(ctx, `UPDATE api_keys SET last_used_at = now() WHERE id = $1`, keyID)
	return err
}
