// Package jobs implements the /v1 routes of jobs: submission, reads, lists, counts, feedback, responses, history and the labeling queue.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/singleflight"

	"github.com/loopwork/loopwork/internal/coalesce"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// ReadDB, when set, is a read replica's pool: the job lists and counts read their rows from it
	// (see reader). Nil reads everything from DB.
	ReadDB *sqlx.DB
	// Grants resolves callers' grants on apps (memoised).
	Grants *access.Grants
	// Engine runs the jobs of apps bound to a flow.
	Engine *run.Engine
	// Admission starts the PENDING jobs of apps with a limit of running jobs.
	Admission Admission
	// Expiry is the sweep that expires jobs past their deadline or time to live; a job stored with one
	// wakes it, so that it plans for the deadline (it looks on its own only now and then when idle).
	// Nil: nothing to wake.
	Expiry interface{ Wake() }
	// Reviews completes the review a job's execution waits for with its label.
	Reviews Reviews
}

// Reviews completes, in a transaction, the open review of an execution with a labeler's response.
type Reviews interface {
	CompleteForJob(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, response json.RawMessage, by uuid.UUID, actor string) (bool, error)
}

// Admission asks, in a transaction, for an app's PENDING jobs to be admitted once it commits.
type Admission interface {
	AdmitTx(ctx context.Context, tx *sql.Tx, app uuid.UUID) error
}

// Service implements its operations of v1api.StrictServerInterface.
type Service struct {
	d      Deps
	recent *recentCounts
	// counting shares one count among the requests that miss the cache together (statusCounts).
	counting singleflight.Group
	// paid writes plain submissions that arrive together in one statement (see submitPaid).
	paid *coalesce.Coalescer[*paid]
	// starting writes submissions that start their app's flow and arrive together in one transaction
	// (see submitStarted).
	starting *coalesce.Coalescer[*starting]
	// versions is, by flow, the version its jobs ran last (see prepare).
	versions versionCache
}

// New returns the service.
func New(d Deps) *Service {
	s := &Service{d: d, recent: newRecentCounts(), paid: newPaidWriter(d.DB)}
	s.starting = coalesce.New(startLanes, startBatch, s.writeStarted)
	return s
}

// reader is where the lists and counts read the app's jobs, their counters and labelers' names: the
// read replica when there is one. Only those reads go there: they scan the most rows and are the most
// frequent, and a caller who pages through a list tolerates an answer a moment old (the replica's replay
// lag), which a caller who has just written a job and reads it back by id would not, so single reads,
// writes and the access checks before every read stay on the primary. The shared count cache is
// written, so it stays on the primary too.
func (s *Service) reader() *sqlx.DB {
	if s.d.ReadDB != nil {
		return s.d.ReadDB
	}
	return s.d.DB
}
