// Package executions implements the flow-executions operations of the /api interface: starting a flow
// on the engine, reading and listing executions, and deleting (and so stopping) them.
package executions

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/run"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Engine *run.Engine
}

// Service implements the executions operations of platformapi.StrictServerInterface.
type Service struct {
	db     *sqlx.DB
	engine *run.Engine
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB, engine: d.Engine} }
