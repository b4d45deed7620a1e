// Package documents implements the document routes of the /api interface: tables of data an
// organization uploads as CSV files (staged, previewed, then imported in the background as a new
// revision into a table of the organization's own PostgreSQL schema) or reads from a registered SQL
// database, with their rows, columns and download links.
package documents

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/secret"
)

const (
	// MaxBytes is the largest CSV file accepted (100 MB).
	MaxBytes = 104857600
	// UploadTTL is how long a staged upload waits to be completed.
	UploadTTL = 24 * time.Hour
	// LinkTTL is the lifetime of download links.
	LinkTTL = time.Hour
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// DatabaseURL is the server's own database, where earlier versions kept the organizations' tables
	// (read once, to move them).
	DatabaseURL string
	// DocumentsURL is the cluster of the organizations' document databases, as a user that may create
	// roles and databases there; OwnCluster says it is loopwork's own, whose database is then closed to
	// the organizations' roles.
	DocumentsURL string
	OwnCluster   bool
	Limits       Limits
	Files        blob.Store
	Box          *secret.Box
	Secrets      *credentials.Opener
	Guard        *netguard.Guard
	Queue        *queue.Client
	Logger       *slog.Logger
}

// Limits bound what one organization's documents and the SQL over them may take.
type Limits struct {
	// Connections is the most connections the organization's role may hold at once.
	Connections int
	// StatementTimeout bounds each statement of the organization's role.
	StatementTimeout time.Duration
	// QuotaBytes is the most the organization's imported tables may take on disk.
	QuotaBytes int64
}

// Service implements the document operations of platformapi.StrictServerInterface.
type Service struct {
	d Deps

	mu       sync.Mutex
	adminDB  *sql.DB
	owners   map[string]*sql.DB
	confined bool
	// legacyDone: no organization's tables are left in loopwork's own database (legacy.go).
	legacyDone atomic.Bool
}

// New returns the service.
func New(d Deps) *Service {
	if d.DocumentsURL == "" {
		d.DocumentsURL, d.OwnCluster = d.DatabaseURL, true
	}
	if d.Limits.Connections < 1 {
		d.Limits.Connections = 5
	}
	if d.Limits.StatementTimeout <= 0 {
		d.Limits.StatementTimeout = 30 * time.Second
	}
	if d.Limits.QuotaBytes <= 0 {
		d.Limits.QuotaBytes = 1 << 30
	}
	return &Service{d: d, owners: map[string]*sql.DB{}}
}

// SetQueue gives the service the queue its imports go to (built after the workers are registered).
func (s *Service) SetQueue(q *queue.Client) { s.d.Queue = q }

// Register adds the import worker and the sweep of expired uploads.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &importWorker{s: s})
	river.AddWorker(w, &sweepWorker{s: s})
	river.AddWorker(w, &deleteFilesWorker{s: s})
	river.AddWorker(w, &legacyWorker{s: s})
}

// Sweeps are the sweep of expired uploads and the move of earlier versions' tables, for the leader
// replica. The move runs when a replica becomes leader and hourly after; once no organization is left
// in an old schema it asks the database nothing (legacyDone: none can appear again).
func (s *Service) Sweeps() []*queue.Sweep {
	return []*queue.Sweep{
		{Name: "document_upload_sweep", Every: sweepEvery, Idle: sweepIdle, Run: s.sweepDue},
		{Name: "document_legacy_move", Every: time.Hour, Idle: time.Hour, Run: func(ctx context.Context) (queue.Outcome, error) {
			if s.legacyDone.Load() {
				return queue.Outcome{}, nil
			}
			return queue.Outcome{}, MoveLegacy(ctx, s)
		}},
	}
}
