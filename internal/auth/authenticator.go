package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/memo"
)

// Authenticator turns the credentials of a request into a Principal and applies the permission table.
// The request validators call it for every operation that lists a security requirement, before the
// request is validated further, so an unauthenticated caller learns nothing about a route's input.
type Authenticator struct {
	db      *sqlx.DB
	tokens  *Tokens
	anonKey string
	// keys and sessions memoise principals by API key hash and by verified claims.
	keys     *memo.Table[string, keyMemo]
	sessions *memo.Table[sessionKey, Principal]
}

// keyMemo is the memoised owner of an API key, with when its use was last recorded (unix nanoseconds).
type keyMemo struct {
	p        Principal
	recorded *atomic.Int64
}

// sessionKey is what a verified access token names.
type sessionKey struct {
	user, session, org uuid.UUID
	external           bool
}

// Principals are kept at most this long even when no change is heard (see memo.Table), and at most
// this many of each kind.
const (
	memoTTL  = 30 * time.Second
	memoSize = 100_000
)

// NewAuthenticator returns the authenticator; anonKey may be empty (then the authentication service
// refuses every caller). Principals are memoised while bus is live; a nil bus loads every one.
func NewAuthenticator(db *sqlx.DB, tokens *Tokens, anonKey string, bus *memo.Bus) *Authenticator {
	return &Authenticator{db: db, tokens: tokens, anonKey: anonKey,
		keys:     memo.NewTable[string, keyMemo](bus, memoTTL, memoSize),
		sessions: memo.NewTable[sessionKey, Principal](bus, memoTTL, memoSize)}
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
// tokens already issued. "As it is now" holds with principals memoised: a change forgets them on
// every replica when it commits (package memo).
func (a *Authenticator) Resolve(ctx context.Context, token string) (*Principal, error) {
	if strings.HasPrefix(token, APIKeyPrefix) {
		return a.byAPIKey(ctx, token)
	}
	claims, err := a.tokens.Verify(ctx, token)
	if errors.Is(err, ErrInvalidToken) {
		return nil, errNoCredentials
	}
	if err != nil {
		return nil, err
	}
	key := sessionKey{user: claims.UserID, session: claims.SessionID, org: claims.OrganizationID, external: claims.External}
	p, err := a.sessions.Load(key, func() (Principal, error) {
		p, err := principalByToken(ctx, a.db, claims)
		if err != nil {
			return Principal{}, err
		}
		return *p, nil
	})
	if errors.Is(err, errNoPrincipal) {
		return nil, errNoCredentials
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// byAPIKey resolves an API key and records its use, at most once a minute so that a busy key does not
// turn every request into a write.
func (a *Authenticator) byAPIKey(ctx context.Context, token string) (*Principal, error) {
	hash := HashToken(token)
	m, err := a.keys.Load(string(hash), func() (keyMemo, error) {
		r, err := apiKeyOwner(ctx, a.db, hash)
		if err != nil {
			return keyMemo{}, err
		}
		m := keyMemo{p: *r.principal(CredentialAPIKey), recorded: new(atomic.Int64)}
		m.p.APIKeyID = r.KeyID
		if r.LastUsedAt != nil {
			m.recorded.Store(r.LastUsedAt.UnixNano())
		}
		return m, nil
	})
	if errors.Is(err, errNoPrincipal) {
		return nil, errNoCredentials
	}
	if err != nil {
		return nil, err
	}
	now := time.Now()
	if last := m.recorded.Load(); now.Sub(time.Unix(0, last)) >= time.Minute && m.recorded.CompareAndSwap(last, now.UnixNano()) {
		if err := recordKeyUse(ctx, a.db, m.p.APIKeyID); err != nil {
			return nil, err
		}
	}
	p := m.p
	return &p, nil
}
