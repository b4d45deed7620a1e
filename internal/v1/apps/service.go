// Package apps implements the /v1 routes of apps: list, create, read, update, clone, owner activity, score existence and feedback statistics.
package apps

import (
	"context"
	"database/sql"

	"github.com/google/uuid"
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
	// Admission starts PENDING jobs; an app that becomes ACTIVE or gets more room asks it to.
	Admission Admission
}

// Admission asks, in a transaction, for an app's PENDING jobs to be admitted once it commits.
type Admission interface {
	AdmitTx(ctx context.Context, tx *sql.Tx, app uuid.UUID) error
}

// Service implements its operations of v1api.StrictServerInterface.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }
