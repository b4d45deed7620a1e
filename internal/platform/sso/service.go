// Package sso implements the single sign-on provider routes of the /api interface: SAML identity
// provider configurations per organization and the lookup of a provider by e-mail domain.
package sso

import (
	"log/slog"
	"net"
	"net/http"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/ratelimit"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// HTTPClient fetches metadata URLs; it must be SSRF-guarded (netguard).
	HTTPClient *http.Client
	Limiter    *ratelimit.Limiter
	// Resolver looks up the TXT records that prove ownership of a domain.
	Resolver *net.Resolver
	// Logger hears of domains the daily re-check released; nil discards.
	Logger *slog.Logger
}

// Service implements the sso operations of platformapi.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

func (s *Service) log() *slog.Logger {
	if s.d.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.d.Logger
}
