package authn

import (
	"context"
	"errors"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// weakPasswordError is a password that auth.CheckPassword refused; its message says what to change.
type weakPasswordError struct{ err error }

func (w weakPasswordError) Error() string { return w.err.Error() }
func (w weakPasswordError) Unwrap() error { return w.err }

// acceptLink is the one path by which an e-mailed link sets a password, for POST /auth/v1/verify and
// for the page at /auth/verify alike: rate limit, password rule, spending the token, setting the
// password, and for recovery ending the old sessions, all in one transaction together with then
// (which may be nil). Any failure leaves the link usable.
func (s *Service) acceptLink(ctx context.Context, kind auth.LinkKind, token, password string,
	then func(tx *sqlx.Tx, a account) error) (account, error) {
	if err := s.limit(ctx, "verify:ip:"+httpx.ClientIP(ctx), s.d.PerIP); err != nil {
		return account{}, err
	}
	// Refuse what no account could accept before paying for a hash; the e-mail part of the rule
	// is checked again once the token names the account.
	if err := auth.CheckPassword(password, ""); err != nil {
		return account{}, weakPasswordError{err}
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return account{}, err
	}
	var a account
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		userID, err := auth.RedeemLink(ctx, tx, token, kind)
		if err != nil {
			return err
		}
		// Accepting an invitation also proves the address; recovery keeps the first confirmation.
		if err := tx.GetContext(ctx, &a, `UPDATE users u SET password_hash = $2, last_login_at = now(),
				email_confirmed_at = coalesce(email_confirmed_at, now())
			WHERE u.id = $1 RETURNING `+accountColumns, userID, hash); err != nil {
			return err
		}
		if err := auth.CheckPassword(password, a.Email); err != nil {
			return weakPasswordError{err}
		}
		// A password reset ends the sessions that may have been opened with the old password.
		if kind == auth.LinkRecovery {
			if _, err := tx.ExecContext(ctx, `UPDATE auth_sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
				return err
			}
		}
		if then == nil {
			return nil
		}
		return then(tx, a)
	})
	return a, err
}

// linkProblem is the part of an ErrInvalidLink meant for the person holding the link.
func linkProblem(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, auth.ErrInvalidLink.Error()+": "); ok {
		return after
	}
	if errors.Is(err, auth.ErrInvalidLink) {
		return "the link is invalid, used or expired"
	}
	return msg
}
