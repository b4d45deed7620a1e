// Package reviews implements human review: the executor of the human_review task type, which opens a
// review task in the transaction that parks its attempt, the /api human-review routes through which
// people start and complete reviews, and the job that applies a review's timeout. Completing a review
// finishes the waiting attempt through the engine in the same transaction, so the review's outcome and
// the execution's next step commit together: with Report, or, for completions of an /api execution's
// reviews that arrive together, with ReportTogether, in one transaction a round.
package reviews

import (
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/queue"
)

// Deps are what the service needs. The engine and the queue come later (SetEngine, SetQueue): the
// engine is built with this package's executor, and the queue with its worker.
type Deps struct {
	DB *sqlx.DB
}

// Service implements the human-review operations of platformapi.StrictServerInterface and the
// human_review executor.
type Service struct {
	db     *sqlx.DB
	engine *run.Engine
	queue  *queue.Client
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB} }

// SetEngine gives the service the engine that completes the attempts waiting for reviews.
func (s *Service) SetEngine(e *run.Engine) { s.engine = e }

// SetQueue gives the service the queue its timeout jobs go to.
func (s *Service) SetQueue(q *queue.Client) { s.queue = q }

// Register adds the worker that applies review timeouts.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &timeoutWorker{s: s})
}
