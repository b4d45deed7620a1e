package auth

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
)

// LinkKind is the purpose of an e-mailed one-time link.
type LinkKind string

const (
	LinkInvite   LinkKind = "invite"
	LinkRecovery LinkKind = "recovery"
)

// ErrInvalidLink covers unknown, used, expired and mismatched link tokens, and those of a deactivated
// user or organization.
var ErrInvalidLink = errors.New("invalid or expired link")

// IssueLink creates a one-time link token for a user and voids the earlier ones of the same kind.
func IssueLink(ctx context.Context, tx dbx.DBTX, userID uuid.UUID, kind LinkKind, ttl time.Duration) (string, error) {
	if _, err := tx.ExecContext(ctx, `UPDATE auth_link_tokens SET used_at = now()
		WHERE user_id = $1 AND kind = $2 AND used_at IS NULL`, userID, kind); err != nil {
		return "", err
	}
	token := NewOpaqueToken()
	_, err := tx.ExecContext(ctx, `INSERT INTO auth_link_tokens (token_hash, user_id, kind, expires_at)
		VALUES ($1, $2, $3, now() + $4 * interval '1 second')`, HashToken(token), userID, kind, ttl.Seconds())
	return token, err
}

// RedeemLink spends a link token of the given kind and returns its user. Run it in the transaction
// that acts on the link, so a failure leaves the token usable.
func RedeemLink(ctx context.Context, tx dbx.DBTX, token string, kind LinkKind) (uuid.UUID, error) {
	var userID uuid.UUID
	err := tx.GetContext(ctx, &userID, `
		UPDATE auth_link_tokens lt SET used_at = now()
		FROM users u JOIN organizations o ON o.id = u.organization_id
		WHERE lt.token_hash = $1 AND lt.kind = $2 AND lt.used_at IS NULL AND lt.expires_at > now()
		  AND u.id = lt.user_id AND u.is_active AND o.is_active
		RETURNING lt.user_id`, HashToken(token), kind)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, ErrInvalidLink
	}
	return userID, err
}
