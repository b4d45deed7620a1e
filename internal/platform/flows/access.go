package flows

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// caller is the principal as the flow rules see it.
type caller struct {
	user, org uuid.UUID
	// admin callers (org_admin, backoffice) see and change every flow of their organization.
	admin bool
	actor string
}

func callerOf(ctx context.Context) caller {
	p := auth.MustFromContext(ctx)
	return caller{user: p.UserID, org: p.OrganizationID, actor: p.Actor(),
		admin: p.Role == auth.RoleOrgAdmin || p.Role == auth.RoleBackoffice}
}

// flowHead is what the rules need to know of a flow: whose it is and how visible its latest version is.
type flowHead struct {
	ID            uuid.UUID  `db:"id"`
	Org           uuid.UUID  `db:"organization_id"`
	CreatedBy     *uuid.UUID `db:"created_by"`
	LatestVersion int        `db:"latest_version"`
	Visibility    string     `db:"visibility"`
	// Invited is whether the caller is invited to the flow.
	Invited bool `db:"invited"`
}

// own is whether the flow belongs to the caller's organization.
func (f flowHead) own(c caller) bool { return f.Org == c.org }

func (f flowHead) creator(c caller) bool { return f.CreatedBy != nil && *f.CreatedBy == c.user }

// visible: a private flow is seen by its creator, its invited users and the organization's admins;
// any other flow by its whole organization; a public flow by every authenticated caller.
func (f flowHead) visible(c caller) bool {
	if !f.own(c) {
		return f.Visibility == "public"
	}
	return f.Visibility != "private" || c.admin || f.creator(c) || f.Invited
}

// changeable by PUT and PATCH: the creator, invited users and admins of the owning organization.
func (f flowHead) changeable(c caller) bool {
	return f.own(c) && (c.admin || f.creator(c) || f.Invited)
}

// deletable, and open to invitations, by the creator and admins of the owning organization only.
func (f flowHead) administrable(c caller) bool { return f.own(c) && (c.admin || f.creator(c)) }

const headQuery = `SELECT f.id, f.organization_id, f.created_by, f.latest_version, f.visibility,
	EXISTS (SELECT 1 FROM flow_invitations i WHERE i.flow_id = f.id AND i.user_id = $3) AS invited
	FROM flows f WHERE f.id = $1 AND f.deleted_at IS NULL AND (f.organization_id = $2 OR f.visibility = 'public')`

// errFlowNotFound is the one 404 of every flow the caller may not see: missing, deleted, another
// organization's, or private to others.
var errFlowNotFound = httpx.NotFound("flow")

// visibleFlow reads the head of a flow the caller may see; lock takes the flow's row lock for a change
// that must see the latest version stay the latest.
func visibleFlow(ctx context.Context, db dbx.DBTX, c caller, id uuid.UUID, lock bool) (flowHead, error) {
	if lock {
		return lockedFlow(ctx, db, c, id, ` FOR UPDATE OF f`)
	}
	return lockedFlow(ctx, db, c, id, ``)
}

// lockedFlow is visibleFlow with a locking clause of the caller's choice.
func lockedFlow(ctx context.Context, db dbx.DBTX, c caller, id uuid.UUID, locking string) (flowHead, error) {
	q := headQuery + locking
	var f flowHead
	err := db.GetContext(ctx, &f, q, id, c.org, c.user)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !f.visible(c)) {
		return flowHead{}, errFlowNotFound
	}
	return f, err
}

// ownFlow is visibleFlow for what only the owning organization may touch (views, invitations): another
// organization's public flow answers the same 404 as a missing one.
func ownFlow(ctx context.Context, db dbx.DBTX, c caller, id uuid.UUID, lock bool) (flowHead, error) {
	f, err := visibleFlow(ctx, db, c, id, lock)
	if err == nil && !f.own(c) {
		return flowHead{}, errFlowNotFound
	}
	return f, err
}

// seeCond is the SQL form of visible for the flows of the caller's organization (alias f), with the
// caller's user id as parameter $n.
func seeCond(c caller, n string) string {
	if c.admin {
		return `TRUE`
	}
	return `(f.visibility <> 'private' OR f.created_by = ` + n + `
		OR EXISTS (SELECT 1 FROM flow_invitations i WHERE i.flow_id = f.id AND i.user_id = ` + n + `))`
}

// CheckOwn answers errFlowNotFound unless the flow belongs to the caller's organization and the caller
// may see it; other resources that point at a flow (integrations) use it so their 404 is the flow's.
// lock takes a key-share lock, so the flow cannot be deleted before the caller's transaction commits.
func CheckOwn(ctx context.Context, db dbx.DBTX, id uuid.UUID, lock bool) error {
	locking := ``
	if lock {
		locking = ` FOR KEY SHARE OF f`
	}
	c := callerOf(ctx)
	f, err := lockedFlow(ctx, db, c, id, locking)
	if err == nil && !f.own(c) {
		return errFlowNotFound
	}
	return err
}
