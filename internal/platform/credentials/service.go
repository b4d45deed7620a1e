// Package credentials implements the credential routes of the /api interface: secrets for outside
// services, checked against their provider's schema, sealed with AES-GCM at rest and never shown again.
package credentials

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/secret"
)

// Deps are what the service needs.
type Deps struct {
	DB *sqlx.DB
	// Box seals secrets under the server's encryption key.
	Box *secret.Box
}

// Service implements the credential operations of platformapi.StrictServerInterface.
type Service struct {
	db  *sqlx.DB
	box *secret.Box
}

// New returns the service.
func New(d Deps) *Service { return &Service{db: d.DB, box: d.Box} }
