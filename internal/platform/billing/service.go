// Package billing implements the credit, product and usage routes of the /api interface.
package billing

import "github.com/jmoiron/sqlx"

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
}

// Service implements the billing operations of platformapi.StrictServerInterface.
type Service struct {
	db *sqlx.DB
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB} }
