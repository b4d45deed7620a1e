// Package apps implements the /v1 routes of apps: list, create, read, update, clone, owner activity, score existence and feedback statistics.
package apps

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Grants resolves callers' grants on apps (memoised).
	Grants *access.Grants
	Queue  *queue.Client
}

// Service implements its operations of v1api.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
