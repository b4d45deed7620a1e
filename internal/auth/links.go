package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// user or organization. The errors below say which; each of them is also ErrInvalidLink.
var ErrInvalidLink = errors.New("invalid or expired link")

var (
	ErrLinkUnknown  = fmt.Errorf("%w: this link is not known (it may be incomplete: copy the whole address from the e-mail)", ErrInvalidLink)
	ErrLinkUsed     = fmt.Errorf("%w: this link has been used already, or a newer one was sent since", ErrInvalidLink)
	ErrLinkExpired  = fmt.Errorf("%w: this link has expired", ErrInvalidLink)
	ErrLinkInactive = fmt.Errorf("%w: the account of this link is deactivated", ErrInvalidLink)
	// ErrLinkKind is a known link sent as a link of the other kind; the error that wraps it names both.
	ErrLinkKind = fmt.Errorf("%w: this link is of another kind", ErrInvalidLink)
)

// kindNames say what each kind of link is for, as the person holding it knows it.
var kindNames = map[LinkKind]string{LinkInvite: "an invitation", LinkRecovery: "a password-recovery"}

// kindError is ErrLinkKind with the two kinds named.
type kindError struct{ is, sentAs LinkKind }

func (e kindError) Error() string {
	return fmt.Sprintf("%s: this is %s link, not %s link (it was sent with type=%s; send it with type=%s)",
		ErrInvalidLink, kindNames[e.is], kindNames[e.sentAs], e.sentAs, e.is)
}

func (e kindError) Is(target error) bool { return target == ErrLinkKind || target == ErrInvalidLink }

// kindMismatch says that the link is of the kind it is, not the kind it was sent as.
func kindMismatch(is, sentAs LinkKind) error { return kindError{is, sentAs} }

// LinkHolder is whom a pending link belongs to.
type LinkHolder struct {
	UserID       uuid.UUID `db:"user_id"`
	Email        string    `db:"email"`
	Organization string    `db:"organization"`
}

// InspectLink returns the holder of a usable link token of the given kind without spending it, or
// the ErrInvalidLink that says why it is not usable. Pages use it to say so before asking for input.
func InspectLink(ctx context.Context, db dbx.DBTX, token string, kind LinkKind) (LinkHolder, error) {
	var st struct {
		LinkHolder
		Kind    LinkKind `db:"kind"`
		Used    bool     `db:"used"`
		Expired bool     `db:"expired"`
		Active  bool     `db:"active"`
	}
	err := db.GetContext(ctx, &st, `
		SELECT lt.user_id, u.email::text AS email, o.name::text AS organization, lt.kind,
		       lt.used_at IS NOT NULL AS used, lt.expires_at <= now() AS expired, u.is_active AND o.is_active AS active
		FROM auth_link_tokens lt JOIN users u ON u.id = lt.user_id JOIN organizations o ON o.id = u.organization_id
		WHERE lt.token_hash = $1`, HashToken(token))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return LinkHolder{}, ErrLinkUnknown
	case err != nil:
		return LinkHolder{}, err
	case st.Kind != kind:
		return LinkHolder{}, kindMismatch(st.Kind, kind)
	case st.Used:
		return LinkHolder{}, ErrLinkUsed
	case st.Expired:
		return LinkHolder{}, ErrLinkExpired
	case !st.Active:
		return LinkHolder{}, ErrLinkInactive
	}
	return st.LinkHolder, nil
}

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
		// Say why: the same conditions, read without the update.
		if _, err = InspectLink(ctx, tx, token, kind); err == nil {
			err = ErrInvalidLink
		}
		return uuid.Nil, err
	}
	return userID, err
}
