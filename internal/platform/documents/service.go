// Package documents implements the document routes of the /api interface: tables of data an
// organization uploads as CSV files (staged, previewed, then imported in the background as a new
// revision into a table of the organization's own PostgreSQL schema) or reads from a registered SQL
// database, with their rows, columns and download links.
package documents

import (
	"log/slog"
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
	// DatabaseURL is the server's own database: imports COPY through a connection of their own, and
	// the organizations' roles log in to it.
	DatabaseURL string
	Files       blob.Store
	Box         *secret.Box
	Secrets     *credentials.Opener
	Guard       *netguard.Guard
	Queue       *queue.Client
	Logger      *slog.Logger
}

// Service implements the document operations of platformapi.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// SetQueue gives the service the queue its imports go to (built after the workers are registered).
func (s *Service) SetQueue(q *queue.Client) { s.d.Queue = q }

// Register adds the import worker and the sweep of expired uploads.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &importWorker{s: s})
	river.AddWorker(w, &sweepWorker{s: s})
	river.AddWorker(w, &deleteFilesWorker{s: s})
}

// PeriodicJobs are the sweep of expired uploads, for the queue's configuration.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
}
