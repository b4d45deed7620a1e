// Package authn implements the authentication service (/auth/v1, compatible with GoTrue / Supabase
// clients) and the anonymous key route: sign-in, refresh with rotation, sign-out, the signed-in user,
// redeeming e-mailed links, and the JWKS.
package authn

import (
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/ratelimit"
)

// Deps are what the service needs.
type Deps struct {
	DB      *sqlx.DB
	Keys    *auth.KeyStore
	Tokens  *auth.Tokens
	Limiter *ratelimit.Limiter
	// AnonKey is the configured anonymous key ("" when none is configured).
	AnonKey string
	// RefreshTTL is the lifetime of refresh tokens.
	RefreshTTL time.Duration
	// PerIP and PerEmail are the sign-in attempts allowed per minute.
	PerIP, PerEmail int
}

// Service implements the auth operations of platformapi.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
