// Package measurerconfig implements the /v1 routes of an app's measurer configuration, and the rule job
// submission follows for measurement jobs (CheckOnboarding).
package measurerconfig

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Grants resolves callers' grants on apps (memoised).
	Grants *access.Grants
}

// Service implements its operations of v1api.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
