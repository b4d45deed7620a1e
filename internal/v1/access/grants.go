package access

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/memo"
)

// Grants resolves callers' grants on apps like Resolve, memoising them while the memo bus is live: a
// change of the app, of its memberships or of the caller forgets them (package memo), so a grant is
// always as the database has it now. Routes that read an app inside a transaction to change it use
// Resolve on that transaction instead.
type Grants struct {
	db    *sqlx.DB
	table *memo.Table[grantKey, Grant]
}

// grantKey is what a grant depends on besides the rows the bus watches.
type grantKey struct {
	app, user, org uuid.UUID
	role           auth.Role
}

// Grants are kept at most this long even when no change is heard, and at most this many.
const (
	grantTTL  = 30 * time.Second
	grantSize = 100_000
)

// NewGrants returns the resolver; with a nil bus nothing is memoised.
func NewGrants(db *sqlx.DB, bus *memo.Bus) *Grants {
	return &Grants{db: db, table: memo.NewTable[grantKey, Grant](bus, grantTTL, grantSize)}
}

// Resolve answers the caller's grant on the app, or 404 when the caller cannot see it. The grant is
// the caller's own copy.
func (gs *Grants) Resolve(ctx context.Context, p *auth.Principal, appID uuid.UUID) (*Grant, error) {
	g, err := gs.table.Load(grantKey{app: appID, user: p.UserID, org: p.OrganizationID, role: p.Role}, func() (Grant, error) {
		g, err := Resolve(ctx, gs.db, p, appID)
		if err != nil {
			return Grant{}, err
		}
		return *g, nil
	})
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// Require resolves the calling principal's grant on the app and answers 403 unless it acts with at
// least the role min.
func (gs *Grants) Require(ctx context.Context, appID uuid.UUID, min Role) (*Grant, *auth.Principal, error) {
	p := auth.MustFromContext(ctx)
	g, err := gs.Resolve(ctx, p, appID)
	if err != nil {
		return nil, nil, err
	}
	if err := g.Require(min); err != nil {
		return nil, nil, err
	}
	return g, p, nil
}
