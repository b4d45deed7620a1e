// Package exports implements the /v1 export routes: an export of an app's job responses is recorded
// and queued in one transaction, a River job streams the matching jobs from PostgreSQL into a CSV or
// JSON Lines file in blob storage (bounded memory, the file whole or not at all), and signed links
// download it until it expires.
package exports

import (
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// Lifetimes of what an export hands out.
const (
	// Keep is how long a finished file stays downloadable.
	Keep = 7 * 24 * time.Hour
	// LinkTTL is the lifetime of a link answered by job_responses_link.
	LinkTTL = 15 * time.Minute
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// DatabaseURL is DB's connection string: an export reads its rows on a connection of its own.
	DatabaseURL string
	Grants      *access.Grants
	Queue       *queue.Client
	Files       blob.Store
	Logger      *slog.Logger
	// Silence is how long an unfinished export may go without a heartbeat before it is taken for lost.
	Silence time.Duration
	// Observe, when set, is told of each export that starts (is recorded and queued), succeeds (its
	// file is written) or fails (given up after its attempts), once it has committed.
	Observe func(event string)
}

// Service implements the export operations of v1api.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// observe tells Deps.Observe of an event, if anyone listens.
func (s *Service) observe(event string) {
	if s.d.Observe != nil {
		s.d.Observe(event)
	}
}
