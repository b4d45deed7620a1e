// Package taskexecutions implements the task-executions operations of the /api interface: workers report
// the attempts of tasks (an upsert whose status only moves forward), anyone who may see an execution lists
// its attempts with the tasks' tags, and outside workers claim the attempts of `external` tasks under a
// lease. A report that finishes an attempt the engine runs hands the outcome to the engine in the same
// transaction, so the record and the execution's progress never disagree.
package taskexecutions

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/run"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Engine *run.Engine
}

// Service implements the recordTaskExecution, listTaskExecutionRecords and claimTaskExecution operations
// of platformapi.StrictServerInterface.
type Service struct {
	db     *sqlx.DB
	engine *run.Engine
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB, engine: d.Engine} }
