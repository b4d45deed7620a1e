// Package sqldatabases implements the SQL database routes of the /api interface: outside PostgreSQL
// databases registered as credentials of provider sql_database (so their ids work wherever a credential
// id does), listed without their secrets, and tested with SELECT 1 through the SSRF guard.
package sqldatabases

import (
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/ratelimit"
)

// TestsPerMinute is how many connection tests one organization may run a minute.
const TestsPerMinute = 30

// Deps are what the service needs.
type Deps struct {
	DB          *sqlx.DB
	Secrets     *credentials.Opener
	Credentials *credentials.Service
	Guard       *netguard.Guard
	Limiter     *ratelimit.Limiter
}

// Service implements the SQL database operations of platformapi.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

const provider = "sql_database"
