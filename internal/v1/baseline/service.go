// Package baseline implements the /v1 baseline data routes: the reference input/response pairs of an
// API (a flow) that the measurer scores its apps' job responses against.
package baseline

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Grants *access.Grants
}

// Service implements the baseline data operations of v1api.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

var errAPINotFound = httpx.NotFound("API")

// RequireAPI answers the caller's principal when it may act on the API (a live flow of its
// organization) with at least the role min: organization-wide roles may; anyone else needs the role on
// one of the API's apps. A caller with no app of the API sees no API (404); too low a role is 403.
func RequireAPI(ctx context.Context, db *sqlx.DB, grants *access.Grants, api uuid.UUID, min access.Role) (*auth.Principal, error) {
	p := auth.MustFromContext(ctx)
	var ok bool
	err := db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM flows WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL)`,
		api, p.OrganizationID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAPINotFound
	}
	if access.OrgWide(p) {
		return p, nil
	}
	var apps []uuid.UUID
	if err := db.SelectContext(ctx, &apps, `SELECT id FROM apps WHERE api_id = $1 AND organization_id = $2 ORDER BY id LIMIT 500`,
		api, p.OrganizationID); err != nil {
		return nil, err
	}
	best := access.None
	for _, app := range apps {
		g, err := grants.Resolve(ctx, p, app)
		var he *httpx.Error
		if errors.As(err, &he) && he.Status == 404 {
			continue
		}
		if err != nil {
			return nil, err
		}
		best = max(best, g.Role)
	}
	if best == access.None {
		return nil, errAPINotFound
	}
	if best < min {
		return nil, httpx.Forbidden("this needs the %s role on an app of this API; yours is %s", min, best)
	}
	return p, nil
}
