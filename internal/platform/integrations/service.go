// Package integrations implements the integration routes of the /api interface: the catalog of what
// loopwork connects to, form descriptions for task parameters, the organization's integrations (a flow's
// task bound to a credential) and live metadata fetched through an integration's credential.
package integrations

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Registry declares the task types whose parameter schemas forms are built from.
	Registry *tasks.Registry
	// Secrets opens the credentials metadata is fetched with.
	Secrets *credentials.Opener
	// Guard decides which hosts a tenant's credential may reach.
	Guard *netguard.Guard
	// Describers answer metadata for providers that other packages own (for example the organization's
	// own tables or an e-mail task's address), by provider name.
	Describers map[string]Describer
}

// Service implements the integration operations of platformapi.StrictServerInterface.
type Service struct {
	db         *sqlx.DB
	registry   *tasks.Registry
	secrets    *credentials.Opener
	guard      *netguard.Guard
	describers map[string]Describer
}

// New returns the service.
func New(d Deps) *Service {
	s := &Service{db: d.DB, registry: d.Registry, secrets: d.Secrets, guard: d.Guard, describers: map[string]Describer{}}
	for k, v := range builtinDescribers() {
		s.describers[k] = v
	}
	s.describers["internal_sql_database"] = s.describeDocuments
	for k, v := range d.Describers {
		s.describers[k] = v
	}
	return s
}
