package flows

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Runnable is what starting an execution needs of a flow: its latest version and whether it is valid.
type Runnable struct {
	ID, Org uuid.UUID
	Version int
	Valid   bool
}

// ForExecution reads the flow the caller wants to start: 404 when the caller may not see it, 403 for a
// public flow of another organization (executions stay within the flow's organization). It takes a key
// share lock on the flow, which a new version (FOR UPDATE) waits for but other starts do not: the
// version an execution starts on stays the latest until it is queued, and starts of one flow run side by
// side.
func ForExecution(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID) (Runnable, error) {
	c := caller{user: p.UserID, org: p.OrganizationID, actor: p.Actor(),
		admin: p.Role == auth.RoleOrgAdmin || p.Role == auth.RoleBackoffice}
	f, err := lockedFlow(ctx, db, c, id, ` FOR KEY SHARE OF f`)
	if err != nil {
		return Runnable{}, err
	}
	if !f.own(c) {
		return Runnable{}, httpx.Forbidden("executions of a flow stay within its organization; this public flow belongs to another")
	}
	r := Runnable{ID: f.ID, Org: f.Org, Version: f.LatestVersion}
	err = db.GetContext(ctx, &r.Valid, `SELECT valid FROM flow_versions WHERE flow_id = $1 AND version = $2`, f.ID, f.LatestVersion)
	return r, err
}

// SeenBy is the SQL condition, on flows aliased f of the principal's organization, that the principal
// may see the flow; userParam is the placeholder that carries the principal's user id (unused, and
// not to be bound, for admins: see Admin).
func SeenBy(p *auth.Principal, userParam string) string {
	return seeCond(caller{admin: Admin(p)}, userParam)
}

// SeenByEach is SeenBy for callers that differ from row to row: admin and user are SQL expressions of
// whether the row's caller is an administrator (Admin) and of its user id.
func SeenByEach(admin, user string) string {
	return `(` + admin + ` OR ` + seeCond(caller{}, user) + `)`
}

// Admin is whether the principal sees every flow of its organization.
func Admin(p *auth.Principal) bool {
	return p.Role == auth.RoleOrgAdmin || p.Role == auth.RoleBackoffice
}

// Changeable reports whether the principal may change the flow (see PUT /api/flows/{id}); the flow must
// be one of its organization's.
func Changeable(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID) (bool, error) {
	c := caller{user: p.UserID, org: p.OrganizationID, admin: Admin(p)}
	var f flowHead
	err := db.GetContext(ctx, &f, headQuery, id, c.org, c.user)
	if err != nil {
		return false, dbx.Translate(err)
	}
	return f.changeable(c), nil
}

// NotRunnable is the 409 for starting a flow whose latest version has validation errors, with the
// errors as ErrorDetails (locations from the definition on).
func NotRunnable(ctx context.Context, db dbx.DBTX, r Runnable) error {
	var raw []byte
	if err := db.GetContext(ctx, &raw, `SELECT definition FROM flow_versions WHERE flow_id = $1 AND version = $2`, r.ID, r.Version); err != nil {
		return err
	}
	var def any
	if err := json.Unmarshal(raw, &def); err != nil {
		return err
	}
	e := httpx.NewError(http.StatusConflict, "invalid_flow",
		"the latest version of the flow has validation errors (in details); fix them with PUT /api/flows/{id}")
	e.Details = details(dsl.Validate(def, tasks.Builtin()))
	return e
}
