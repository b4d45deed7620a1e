package authn

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// maxAccountsPerEmail bounds the password checks one sign-in may cost: an e-mail may have an account in
// several organizations (it is unique per organization only).
const maxAccountsPerEmail = 5

// grantError is a refused grant. /auth/v1/token answers it as GoTrue does, an OAuth 2.0 token error
// (error invalid_grant, error_description) with GoTrue's error_code, and not as the ErrorResponse of
// other routes: GoTrue and Supabase clients read those fields to report the failure.
type grantError struct {
	code        platformapi.TokenErrorErrorCode
	description string
}

func (g grantError) Error() string { return "invalid_grant: " + g.description }

// response is the 400 body, with the request id as other error bodies carry it.
func (g grantError) response(ctx context.Context) platformapi.IssueToken400JSONResponse {
	out := platformapi.IssueToken400JSONResponse{Error: platformapi.InvalidGrant, ErrorCode: g.code, ErrorDescription: g.description}
	if c := echomw.GetEchoContext(ctx); c != nil {
		if id := httpx.RequestID(c); id != "" {
			out.RequestId = &id
		}
	}
	return out
}

var (
	errInvalidCredentials = grantError{platformapi.InvalidCredentials, "Invalid login credentials"}
	errInvalidRefresh     = grantError{platformapi.RefreshTokenNotFound, "Invalid Refresh Token: unknown, expired, revoked or already used"}
)

// IssueToken signs a user in with a password, or rotates a refresh token.
func (s *Service) IssueToken(ctx context.Context, req platformapi.IssueTokenRequestObject) (platformapi.IssueTokenResponseObject, error) {
	body := platformapi.TokenRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	if err := s.limit(ctx, "signin:ip:"+httpx.ClientIP(ctx), s.d.PerIP); err != nil {
		return nil, err
	}
	switch req.Params.GrantType {
	case platformapi.Password:
		if body.Email == nil || *body.Email == "" {
			return nil, httpx.Invalid([]any{"body", "email"}, "missing", "required for grant_type=password")
		}
		if body.Password == nil || *body.Password == "" {
			return nil, httpx.Invalid([]any{"body", "password"}, "missing", "required for grant_type=password")
		}
		if err := s.limit(ctx, "signin:email:"+strings.ToLower(string(*body.Email)), s.d.PerEmail); err != nil {
			return nil, err
		}
		res, err := s.passwordGrant(ctx, string(*body.Email), *body.Password)
		return tokenReply(ctx, res, err)
	default:
		if body.RefreshToken == nil || *body.RefreshToken == "" {
			return nil, httpx.Invalid([]any{"body", "refresh_token"}, "missing", "required for grant_type=refresh_token")
		}
		res, err := s.refreshGrant(ctx, *body.RefreshToken)
		return tokenReply(ctx, res, err)
	}
}

// tokenReply answers a grant's session, its refusal in GoTrue's shape, or any other error as usual.
func tokenReply(ctx context.Context, res platformapi.AuthSession, err error) (platformapi.IssueTokenResponseObject, error) {
	var refused grantError
	switch {
	case errors.As(err, &refused):
		return refused.response(ctx), nil
	case err != nil:
		return nil, err
	}
	return platformapi.IssueToken200JSONResponse(res), nil
}

// passwordGrant answers the same error, in about the same time, for an unknown e-mail, a wrong
// password, an invitation not yet accepted and a deactivated user or organization.
func (s *Service) passwordGrant(ctx context.Context, email, password string) (platformapi.AuthSession, error) {
	var candidates []account
	err := s.d.DB.SelectContext(ctx, &candidates, `SELECT `+accountColumns+`
		FROM users u JOIN organizations o ON o.id = u.organization_id
		WHERE u.email = $1 AND u.is_active AND o.is_active AND u.password_hash IS NOT NULL
		ORDER BY u.last_login_at DESC NULLS LAST, u.created_at
		LIMIT $2`, email, maxAccountsPerEmail)
	if err != nil {
		return platformapi.AuthSession{}, err
	}
	if len(candidates) == 0 {
		auth.BurnPasswordTime(password)
		return platformapi.AuthSession{}, errInvalidCredentials
	}
	var who *account
	for i := range candidates {
		ok, err := auth.VerifyPassword(*candidates[i].PasswordHash, password)
		if err != nil {
			return platformapi.AuthSession{}, err
		}
		if ok {
			who = &candidates[i]
			break
		}
	}
	if who == nil {
		return platformapi.AuthSession{}, errInvalidCredentials
	}
	var sess auth.Session
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var err error
		if sess, err = auth.StartSession(ctx, tx, who.ID, who.OrganizationID, s.d.RefreshTTL, httpx.UserAgent(ctx), httpx.ClientIP(ctx)); err != nil {
			return err
		}
		return tx.GetContext(ctx, &who.LastLoginAt, `UPDATE users SET last_login_at = now() WHERE id = $1 RETURNING last_login_at`, who.ID)
	})
	if err != nil {
		return platformapi.AuthSession{}, err
	}
	return s.session(ctx, *who, sess)
}

func (s *Service) refreshGrant(ctx context.Context, token string) (platformapi.AuthSession, error) {
	sess, err := auth.RotateRefreshToken(ctx, s.d.DB, token, s.d.RefreshTTL)
	if errors.Is(err, auth.ErrInvalidGrant) {
		return platformapi.AuthSession{}, errInvalidRefresh
	}
	if err != nil {
		return platformapi.AuthSession{}, err
	}
	a, err := loadAccount(ctx, s.d.DB, sess.UserID)
	if err != nil {
		return platformapi.AuthSession{}, err
	}
	return s.session(ctx, a, sess)
}

// limit counts one attempt against a per-minute limit and answers 429 with Retry-After over it.
func (s *Service) limit(ctx context.Context, key string, perMinute int) error {
	ok, retry, err := s.d.Limiter.Allow(ctx, key, perMinute, time.Minute)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	return httpx.TooManyRequests(retry, "too many sign-in attempts")
}
