package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/jmoiron/sqlx"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/loopwork/loopwork/internal/httpx"
)

// Authenticator turns the credentials of a request into a Principal and applies the permission table.
// The request validators call it for every operation that lists a security requirement, before the
// request is validated further, so an unauthenticated caller learns nothing about a route's input.
type Authenticator struct {
	db      *sqlx.DB
	tokens  *Tokens
	anonKey string
}

// NewAuthenticator returns the authenticator; anonKey may be empty (then the authentication service
// refuses every caller).
func NewAuthenticator(db *sqlx.DB, tokens *Tokens, anonKey string) *Authenticator {
	return &Authenticator{db: db, tokens: tokens, anonKey: anonKey}
}

var errNoCredentials = httpx.Unauthorized("missing or invalid credentials")

// Authenticate is an httpx.Authenticator.
func (a *Authenticator) Authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	op := in.RequestValidationInput.Route.Operation.OperationID
	access, ok := Permissions[op]
	if !ok {
		return fmt.Errorf("auth: operation %s has no entry in the permission table", op)
	}
	req := in.RequestValidationInput.Request
	if in.SecuritySchemeName == "anonKey" {
		got := req.Header.Get("apikey")
		if a.anonKey == "" || subtle.ConstantTimeCompare([]byte(got), []byte(a.anonKey)) != 1 {
			return httpx.Unauthorized("missing or invalid apikey header")
		}
		return nil
	}
	token := bearer(req.Header.Get("Authorization"))
	if token == "" {
		return errNoCredentials
	}
	if access.JWTOnly && strings.HasPrefix(token, APIKeyPrefix) {
		return httpx.Unauthorized("this route takes a session access token, not an API key")
	}
	p, err := a.Resolve(ctx, token)
	if err != nil {
		return err
	}
	if !access.Allows(p.Role) {
		return httpx.Forbidden("the %s role may not call %s", p.Role, op)
	}
	if c := echomw.GetEchoContext(ctx); c != nil {
		c.SetRequest(c.Request().WithContext(WithPrincipal(c.Request().Context(), p)))
	}
	return nil
}

// bearer accepts "Bearer <token>" (any case) and, for the /v1 apiToken scheme, the bare token.
func bearer(h string) string {
	h = strings.TrimSpace(h)
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return h
}

// Resolve verifies a JWT or an API key and loads the caller as it is now: a deactivated user or
// organization, a revoked key or an ended session is refused at once, and role changes apply to
// tokens already issued.
func (a *Authenticator) Resolve(ctx context.Context, token string) (*Principal, error) {
	if strings.HasPrefix(token, APIKeyPrefix) {
		p, err := principalByAPIKey(ctx, a.db, HashToken(token))
		if errors.Is(err, errNoPrincipal) {
			return nil, errNoCredentials
		}
		return p, err
	}
	claims, err := a.tokens.Verify(ctx, token)
	if errors.Is(err, ErrInvalidToken) {
		return nil, errNoCredentials
	}
	if err != nil {
		return nil, err
	}
	p, err := principalByToken(ctx, a.db, claims)
	if errors.Is(err, errNoPrincipal) {
		return nil, errNoCredentials
	}
	return p, err
}
