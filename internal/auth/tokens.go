package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// ErrInvalidToken covers every way an access token can be unusable: malformed, unsigned (alg none),
// signed by an unknown or wrong key, expired, not yet valid, or of another issuer or audience. Callers
// get the same 401 for all of them.
var ErrInvalidToken = errors.New("invalid access token")

var asymmetric = map[string]bool{"RS256": true, "RS384": true, "RS512": true, "PS256": true, "PS384": true,
	"PS512": true, "ES256": true, "ES384": true, "ES512": true, "EdDSA": true}

// AccessClaims are what an access token says about its bearer.
type AccessClaims struct {
	UserID         uuid.UUID
	OrganizationID uuid.UUID
	SessionID      uuid.UUID // uuid.Nil for tokens of an external issuer
	Email          string
	IssuedAt       time.Time
	ExpiresAt      time.Time
	External       bool
}

// ExternalIssuer describes an outside authentication server whose tokens are trusted as well.
type ExternalIssuer struct {
	JWKSURL, Issuer, Audience string
	Client                    *http.Client
}

// Tokens issues and verifies access tokens.
type Tokens struct {
	keys     *KeyStore
	issuer   string
	audience string
	ttl      time.Duration
	external *externalKeys
	now      func() time.Time
}

// NewTokens returns the token service; ext may be nil.
func NewTokens(keys *KeyStore, issuer, audience string, ttl time.Duration, ext *ExternalIssuer) *Tokens {
	t := &Tokens{keys: keys, issuer: issuer, audience: audience, ttl: ttl, now: time.Now}
	if ext != nil && ext.JWKSURL != "" {
		t.external = &externalKeys{ExternalIssuer: *ext}
	}
	return t
}

// TTL is the lifetime of issued access tokens.
func (t *Tokens) TTL() time.Duration { return t.ttl }

// Issue signs an access token with the current key. The claims follow GoTrue's (sub, email, role
// "authenticated", session_id) so its clients read them unchanged, plus organization_id.
func (t *Tokens) Issue(ctx context.Context, c AccessClaims) (string, time.Time, error) {
	key, err := t.keys.SigningKey(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	now := t.now().Truncate(time.Second)
	exp := now.Add(t.ttl)
	tok, err := jwt.NewBuilder().
		Issuer(t.issuer).
		Audience([]string{t.audience}).
		Subject(c.UserID.String()).
		IssuedAt(now).
		NotBefore(now).
		Expiration(exp).
		JwtID(uuid.NewString()).
		Claim("email", c.Email).
		Claim("role", "authenticated").
		Claim("session_id", c.SessionID.String()).
		Claim("organization_id", c.OrganizationID.String()).
		Build()
	if err != nil {
		return "", time.Time{}, err
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), key))
	if err != nil {
		return "", time.Time{}, err
	}
	return string(signed), exp, nil
}

// Verify checks signature, algorithm, issuer, audience and time, and returns the claims.
func (t *Tokens) Verify(ctx context.Context, raw string) (*AccessClaims, error) {
	msg, err := jws.Parse([]byte(raw))
	if err != nil || len(msg.Signatures()) != 1 {
		return nil, ErrInvalidToken
	}
	hdr := msg.Signatures()[0].ProtectedHeaders()
	kid, _ := hdr.KeyID()
	alg, _ := hdr.Algorithm()
	if kid == "" {
		return nil, ErrInvalidToken
	}
	set, issuer, audience, external, err := t.keySetFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	if set == nil {
		return nil, ErrInvalidToken
	}
	// The key set decides the algorithm: a token cannot choose "none" or HS256-with-the-public-key.
	key, ok := set.LookupKeyID(kid)
	if !ok {
		return nil, ErrInvalidToken
	}
	keyAlg, hasAlg := key.Algorithm()
	switch {
	case hasAlg && keyAlg.String() != alg.String():
		return nil, ErrInvalidToken
	case !hasAlg && (!external || !asymmetric[alg.String()]):
		// Outside issuers often omit alg from their JWKS; then only an asymmetric algorithm that fits
		// the key type is accepted (jwx infers it), never none or an HMAC.
		return nil, ErrInvalidToken
	}
	opts := []jwt.ParseOption{
		jwt.WithKeySet(set, jws.WithRequireKid(true), jws.WithInferAlgorithmFromKey(!hasAlg)),
		jwt.WithValidate(true),
		jwt.WithIssuer(issuer),
		jwt.WithAcceptableSkew(30 * time.Second),
		jwt.WithClock(jwt.ClockFunc(t.now)),
	}
	if audience != "" {
		opts = append(opts, jwt.WithAudience(audience))
	}
	tok, err := jwt.Parse([]byte(raw), opts...)
	if err != nil {
		return nil, ErrInvalidToken
	}
	return claimsOf(tok, external)
}

func claimsOf(tok jwt.Token, external bool) (*AccessClaims, error) {
	c := &AccessClaims{External: external}
	sub, _ := tok.Subject()
	var err error
	if c.UserID, err = uuid.Parse(sub); err != nil {
		return nil, ErrInvalidToken
	}
	c.IssuedAt, _ = tok.IssuedAt()
	c.ExpiresAt, _ = tok.Expiration()
	var s string
	if tok.Get("email", &s) == nil {
		c.Email = s
	}
	if external {
		return c, nil
	}
	if tok.Get("session_id", &s) != nil {
		return nil, ErrInvalidToken
	}
	if c.SessionID, err = uuid.Parse(s); err != nil {
		return nil, ErrInvalidToken
	}
	if tok.Get("organization_id", &s) != nil {
		return nil, ErrInvalidToken
	}
	if c.OrganizationID, err = uuid.Parse(s); err != nil {
		return nil, ErrInvalidToken
	}
	return c, nil
}

// keySetFor finds the key set that may hold kid: this server's (reloaded once for a new kid), then the
// external issuer's.
func (t *Tokens) keySetFor(ctx context.Context, kid string) (jwk.Set, string, string, bool, error) {
	set, err := t.keys.PublicKeys(ctx)
	if err != nil {
		return nil, "", "", false, err
	}
	if _, ok := set.LookupKeyID(kid); !ok {
		if err := t.keys.Reload(ctx); err != nil {
			return nil, "", "", false, err
		}
		if set, err = t.keys.PublicKeys(ctx); err != nil {
			return nil, "", "", false, err
		}
	}
	if _, ok := set.LookupKeyID(kid); ok {
		return set, t.issuer, t.audience, false, nil
	}
	if t.external != nil {
		ext, err := t.external.lookup(ctx, kid)
		if err != nil || ext == nil {
			return nil, "", "", false, nil
		}
		return ext, t.external.Issuer, t.external.Audience, true, nil
	}
	return nil, "", "", false, nil
}

// externalKeys caches an outside issuer's JWKS and refetches it, at most every 30 seconds, when a
// token names a kid it does not hold.
type externalKeys struct {
	ExternalIssuer
	mu        sync.Mutex
	set       jwk.Set
	fetchedAt time.Time
}

func (e *externalKeys) lookup(ctx context.Context, kid string) (jwk.Set, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	stale := e.set == nil || time.Since(e.fetchedAt) > 10*time.Minute
	missing := e.set != nil
	if missing {
		_, ok := e.set.LookupKeyID(kid)
		missing = !ok
	}
	if stale || (missing && time.Since(e.fetchedAt) > 30*time.Second) {
		client := e.Client
		if client == nil {
			client = &http.Client{Timeout: 5 * time.Second}
		}
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		set, err := jwk.Fetch(fctx, e.JWKSURL, jwk.WithHTTPClient(client))
		if err != nil {
			return nil, fmt.Errorf("fetch external JWKS: %w", err)
		}
		e.set, e.fetchedAt = set, time.Now()
	}
	if _, ok := e.set.LookupKeyID(kid); !ok {
		return nil, nil
	}
	return e.set, nil
}
