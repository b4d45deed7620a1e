// Package apikeys implements the API key routes of the /api interface: long-lived credentials for
// users and service accounts, shown once and stored hashed.
package apikeys

import "github.com/jmoiron/sqlx"

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
}

// Service implements the api-keys operations of platformapi.StrictServerInterface.
type Service struct {
	db *sqlx.DB
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB} }
