// Package jobs implements the /v1 routes of jobs: submission, reads, lists, counts, feedback, responses, history and the labeling queue.
package jobs

import (
	"github.com/jmoiron/sqlx"
	"github.com/loopwork/loopwork/internal/engine/run"

	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Grants resolves callers' grants on apps (memoised).
	Grants *access.Grants
	// Engine runs the jobs of apps bound to a flow.
	Engine *run.Engine
}

// Service implements its operations of v1api.StrictServerInterface.
type Service struct {
	d      Deps
	recent *recentCounts
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d, recent: newRecentCounts()} }
