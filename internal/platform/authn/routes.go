package authn

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Logout ends the caller's session, every session, or every other session.
func (s *Service) Logout(ctx context.Context, req platformapi.LogoutRequestObject) (platformapi.LogoutResponseObject, error) {
	p := auth.MustFromContext(ctx)
	scope := auth.LogoutLocal
	if req.Params.Scope != nil {
		scope = auth.LogoutScope(*req.Params.Scope)
	}
	if p.SessionID == uuid.Nil && scope != auth.LogoutGlobal {
		// A token of an external issuer has no session of ours; only global sign-out means something.
		return nil, httpx.BadRequest("no_session", "this access token has no session; use scope=global")
	}
	if err := auth.EndSessions(ctx, s.d.DB, p.UserID, p.SessionID, scope); err != nil {
		return nil, err
	}
	return platformapi.Logout204Response{}, nil
}

// GetAuthUser returns the signed-in user in GoTrue's format.
func (s *Service) GetAuthUser(ctx context.Context, _ platformapi.GetAuthUserRequestObject) (platformapi.GetAuthUserResponseObject, error) {
	a, err := loadAccount(ctx, s.d.DB, auth.MustFromContext(ctx).UserID)
	if err != nil {
		return nil, err
	}
	return platformapi.GetAuthUser200JSONResponse(a.gotrueUser()), nil
}

// VerifyAuthLink redeems an invitation or recovery link: it sets the chosen password and signs the
// user in. The link is spent only if everything else succeeds.
func (s *Service) VerifyAuthLink(ctx context.Context, req platformapi.VerifyAuthLinkRequestObject) (platformapi.VerifyAuthLinkResponseObject, error) {
	b := req.Body
	var sess auth.Session
	a, err := s.acceptLink(ctx, auth.LinkKind(b.Type), b.Token, b.Password, func(tx *sqlx.Tx, a account) (err error) {
		sess, err = auth.StartSession(ctx, tx, a.ID, a.OrganizationID, s.d.RefreshTTL, httpx.UserAgent(ctx), httpx.ClientIP(ctx))
		return err
	})
	var weak weakPasswordError
	switch {
	case errors.Is(err, auth.ErrInvalidLink):
		return nil, httpx.BadRequest("invalid_token", "%s", linkProblem(err))
	case errors.As(err, &weak):
		return nil, &httpx.Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: weak.Error(),
			Validation: []httpx.ValidationItem{{Loc: []any{"body", "password"}, Msg: weak.Error(), Type: "weak_password"}}}
	case err != nil:
		return nil, err
	}
	res, err := s.session(ctx, a, sess)
	if err != nil {
		return nil, err
	}
	return platformapi.VerifyAuthLink200JSONResponse(res), nil
}

// jwks sends the key set as jwx renders it (RFC 7517), without a round trip through generated types.
type jwks []byte

func (j jwks) VisitGetJwksResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	// Verifiers may cache the set briefly; a new key is published well before it signs.
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(j)
	return err
}

// GetJwks publishes the public keys that verify access tokens.
func (s *Service) GetJwks(ctx context.Context, _ platformapi.GetJwksRequestObject) (platformapi.GetJwksResponseObject, error) {
	set, err := s.d.Keys.PublicKeys(ctx)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	return jwks(b), nil
}

// GetAnonKey hands out the anonymous key; it grants nothing but the authentication service.
func (s *Service) GetAnonKey(context.Context, platformapi.GetAnonKeyRequestObject) (platformapi.GetAnonKeyResponseObject, error) {
	if s.d.AnonKey == "" {
		return nil, httpx.NewError(http.StatusInternalServerError, "anon_key_not_configured",
			"no anonymous key is configured on this server (LOOPWORK_ANON_KEY)")
	}
	return platformapi.GetAnonKey200JSONResponse{AnonKey: s.d.AnonKey}, nil
}
