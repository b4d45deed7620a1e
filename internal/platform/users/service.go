// Package users implements the user routes of the /api interface: people and service accounts of an
// organization, their roles, invitations and the caller's profile.
package users

import (
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/ratelimit"
)

// Deps are what the service needs.
type Deps struct {
	DB      *sqlx.DB
	Queue   *queue.Client
	Limiter *ratelimit.Limiter
	// InviteTTL and RecoveryTTL are the lifetimes of e-mailed links.
	InviteTTL, RecoveryTTL time.Duration
	// WebURL is the web client the links open (its /auth/verify page); empty derives it from the request.
	WebURL string
}

// Service implements the users operations of platformapi.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
