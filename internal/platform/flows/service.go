// Package flows implements the flows area of the /api interface: versioned flow definitions, their
// visibility and invitations, and views of flow versions. Definitions are checked by the engine's DSL
// validator against the task-type registry, the same two packages the engine and the agent use.
package flows

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Registry declares the task types definitions may use (nil: the built-in types).
	Registry *tasks.Registry
	// Source supplies the dynamic data of task types (configured models, the organization's databases
	// and credentials).
	Source tasks.Source
	// Engine re-runs executions when a flow with reexecute_on_update is saved (nil: they only become
	// stale).
	Engine *run.Engine
}

// Service implements the flows, flow-views and flow-invitations operations of
// platformapi.StrictServerInterface.
type Service struct {
	db       *sqlx.DB
	registry *tasks.Registry
	source   tasks.Source
	engine   *run.Engine
}

// New returns the service.
func New(d Deps) *Service {
	reg := d.Registry
	if reg == nil {
		reg = tasks.Builtin()
	}
	src := d.Source
	if src == nil {
		src = NewSource(d.DB)
	}
	return &Service{db: d.DB, registry: reg, source: src, engine: d.Engine}
}
