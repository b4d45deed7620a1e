package auth

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
)

// ErrInvalidGrant covers every unusable refresh token: unknown, expired, already used, of an ended
// session, or of a deactivated user or organization.
var ErrInvalidGrant = errors.New("invalid refresh token")

// Session is a signed-in session and its current refresh token.
type Session struct {
	ID             uuid.UUID
	UserID         uuid.UUID
	OrganizationID uuid.UUID
	RefreshToken   string
}

// StartSession opens a session for a user who just proved who they are.
func StartSession(ctx context.Context, tx dbx.DBTX, userID, orgID uuid.UUID, refreshTTL time.Duration, userAgent, ip string) (Session, error) {
	s := Session{UserID: userID, OrganizationID: orgID, RefreshToken: NewOpaqueToken()}
	if err := tx.GetContext(ctx, &s.ID, `INSERT INTO auth_sessions (user_id, organization_id, user_agent, ip)
		VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, '')) RETURNING id`, userID, orgID, userAgent, ip); err != nil {
		return s, err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO auth_refresh_tokens (token_hash, session_id, expires_at)
		VALUES ($1, $2, now() + $3 * interval '1 second')`, HashToken(s.RefreshToken), s.ID, refreshTTL.Seconds())
	return s, err
}

// RotateRefreshToken spends a refresh token and returns the session with its successor. Presenting a
// token that was already spent means it leaked: the whole session is revoked, so neither the thief
// nor the owner can continue it.
func RotateRefreshToken(ctx context.Context, db *sqlx.DB, token string, refreshTTL time.Duration) (Session, error) {
	var s Session
	var reused bool
	err := dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
		var row struct {
			SessionID uuid.UUID  `db:"session_id"`
			UserID    uuid.UUID  `db:"user_id"`
			OrgID     uuid.UUID  `db:"organization_id"`
			UsedAt    *time.Time `db:"used_at"`
			Usable    bool       `db:"usable"`
		}
		err := tx.GetContext(ctx, &row, `
			SELECT rt.session_id, s.user_id, s.organization_id, rt.used_at,
			       (rt.expires_at > now() AND s.revoked_at IS NULL AND u.is_active AND o.is_active) AS usable
			FROM auth_refresh_tokens rt
			JOIN auth_sessions s ON s.id = rt.session_id
			JOIN users u ON u.id = s.user_id
			JOIN organizations o ON o.id = s.organization_id
			WHERE rt.token_hash = $1
			FOR UPDATE OF rt, s`, HashToken(token))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrInvalidGrant
		}
		if err != nil {
			return err
		}
		if row.UsedAt != nil {
			reused = true
			_, err := tx.ExecContext(ctx, `UPDATE auth_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, row.SessionID)
			return err
		}
		if !row.Usable {
			return ErrInvalidGrant
		}
		s = Session{ID: row.SessionID, UserID: row.UserID, OrganizationID: row.OrgID, RefreshToken: NewOpaqueToken()}
		if _, err := tx.ExecContext(ctx, `UPDATE auth_refresh_tokens SET used_at = now() WHERE token_hash = $1`, HashToken(token)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE auth_sessions SET refreshed_at = now() WHERE id = $1`, s.ID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO auth_refresh_tokens (token_hash, session_id, expires_at)
			VALUES ($1, $2, now() + $3 * interval '1 second')`, HashToken(s.RefreshToken), s.ID, refreshTTL.Seconds())
		return err
	})
	if err == nil && reused {
		return Session{}, ErrInvalidGrant
	}
	return s, err
}

// LogoutScope says which sessions a logout ends.
type LogoutScope string

const (
	LogoutLocal  LogoutScope = "local"  // the session of the presented token
	LogoutGlobal LogoutScope = "global" // every session of the user
	LogoutOthers LogoutScope = "others" // every session but the presented one
)

// EndSessions revokes sessions of a user; their access tokens are refused from then on.
func EndSessions(ctx context.Context, db dbx.DBTX, userID, current uuid.UUID, scope LogoutScope) error {
	const q = `UPDATE auth_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`
	var err error
	switch scope {
	case LogoutLocal:
		_, err = db.ExecContext(ctx, q+` AND id = $2`, userID, current)
	case LogoutOthers:
		_, err = db.ExecContext(ctx, q+` AND id <> $2`, userID, current)
	default:
		_, err = db.ExecContext(ctx, q, userID)
	}
	return err
}

// RevokeUserAccess ends every session of a user and voids its pending links (on deactivation).
// API keys are left alone: they are refused while the user is inactive and work again if it returns.
func RevokeUserAccess(ctx context.Context, db dbx.DBTX, userID uuid.UUID) error {
	if _, err := db.ExecContext(ctx, `UPDATE auth_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `UPDATE auth_link_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL`, userID)
	return err
}
