package billing

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// errNoOrganization is the one answer for an unknown organization and for one the caller may not see.
func errNoOrganization() error { return httpx.NotFound("organization") }

// reportedOrganization resolves the optional organization_id of the reading routes. Without it, or
// naming the caller's own, it is the caller's organization. Only backoffice may name another one, and
// then it must exist; for every other role another organization is simply not found.
func reportedOrganization(ctx context.Context, db dbx.DBTX, p *auth.Principal, requested *uuid.UUID) (uuid.UUID, error) {
	if requested == nil || *requested == p.OrganizationID {
		return p.OrganizationID, nil
	}
	if !p.IsBackoffice() {
		return uuid.Nil, errNoOrganization()
	}
	if err := organizationExists(ctx, db, *requested); err != nil {
		return uuid.Nil, err
	}
	return *requested, nil
}

// organizationExists answers 404 for an unknown organization. Deactivated organizations exist: they
// keep their ledger, and backoffice may still grant them credits.
func organizationExists(ctx context.Context, db dbx.DBTX, org uuid.UUID) error {
	var found bool
	if err := db.GetContext(ctx, &found, `SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1)`, org); err != nil {
		return err
	}
	if !found {
		return errNoOrganization()
	}
	return nil
}
