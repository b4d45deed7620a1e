// Package orgs implements the organization routes of the /api interface: tenants, their activation and
// deactivation.
package orgs

import "github.com/jmoiron/sqlx"

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
}

// Service implements the organizations operations of platformapi.StrictServerInterface.
type Service struct {
	db *sqlx.DB
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB} }
