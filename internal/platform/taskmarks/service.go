// Package taskmarks implements the marks that the engine, workers and people put on the tasks of a flow
// execution through the /api interface: display statuses (an append-only record per change) and tags
// (soft-deleted, unique while active). Both are annotations beside the engine's own state: they belong
// to a task name of one execution and never change the execution or its task executions.
package taskmarks

import (
	"github.com/jmoiron/sqlx"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
}

// Service implements the addTaskStatuses, listTaskStatuses, batchPatchTaskTags and listTaskTags
// operations of platformapi.StrictServerInterface.
type Service struct {
	db *sqlx.DB
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB} }
