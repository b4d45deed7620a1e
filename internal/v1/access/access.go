// Package access answers, for a caller and an app, whether the caller sees the app and with which role
// it acts on it. Every /v1 route that names an app goes through Resolve, so the rules live here once:
// organization-wide roles (org_admin, integration, and backoffice in any organization) act as MANAGER;
// an app_user is MANAGER of the apps it owns and otherwise acts through its membership role, the
// highest of its own and its worker groups'; an app the caller cannot see is 404, like a missing one.
package access

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Role is a membership role on an app; the zero Role is no membership.
type Role int

const (
	None Role = iota
	Labeler
	Reviewer
	Manager
)

var roleNames = map[Role]string{Labeler: "LABELER", Reviewer: "REVIEWER", Manager: "MANAGER"}

func (r Role) String() string { return roleNames[r] }

// ParseRole reads LABELER, REVIEWER or MANAGER.
func ParseRole(s string) Role {
	for r, n := range roleNames {
		if n == s {
			return r
		}
	}
	return None
}

// App is an app row.
type App struct {
	ID                      uuid.UUID       `db:"id"`
	OrganizationID          uuid.UUID       `db:"organization_id"`
	Name                    string          `db:"name"`
	Description             *string         `db:"description"`
	APIID                   *uuid.UUID      `db:"api_id"`
	Status                  string          `db:"status"`
	JobTTLSeconds           *int            `db:"job_ttl_seconds"`
	Settings                json.RawMessage `db:"settings"`
	OwnerID                 *uuid.UUID      `db:"owner_id"`
	OwnerActivityAt         *time.Time      `db:"owner_activity_at"`
	PreviousOwnerActivityAt *time.Time      `db:"previous_owner_activity_at"`
	CreatedAt               time.Time       `db:"created_at"`
	UpdatedAt               time.Time       `db:"updated_at"`
	ModifiedBy              string          `db:"modified_by"`
}

// AppColumns selects an App from `apps a`.
const AppColumns = `a.id, a.organization_id, a.name, a.description, a.api_id, a.status, a.job_ttl_seconds, a.settings,
	a.owner_id, a.owner_activity_at, a.previous_owner_activity_at, a.created_at, a.updated_at, a.modified_by`

// Grant is an app as a caller may act on it.
type Grant struct {
	App
	Role Role
	// OrgWide is true when the role comes from the organization role rather than the app.
	OrgWide bool
}

// OrgWide reports whether a principal acts as MANAGER on every app of its organization.
func OrgWide(p *auth.Principal) bool {
	return p.Role == auth.RoleOrgAdmin || p.Role == auth.RoleIntegration || p.Role == auth.RoleBackoffice
}

// Resolve loads the app for the caller, or answers 404 when the caller cannot see it.
func Resolve(ctx context.Context, db dbx.DBTX, p *auth.Principal, appID uuid.UUID) (*Grant, error) {
	if OrgWide(p) {
		// Organization-wide roles act as MANAGER on every app they can see: no membership to look up.
		var a App
		err := db.GetContext(ctx, &a, `SELECT `+AppColumns+` FROM apps a WHERE a.id = $1 AND (a.organization_id = $2 OR $3)`,
			appID, p.OrganizationID, p.IsBackoffice())
		if errors.Is(err, sql.ErrNoRows) {
			return nil, httpx.NotFound("app")
		}
		if err != nil {
			return nil, err
		}
		return &Grant{App: a, Role: Manager, OrgWide: true}, nil
	}
	var row struct {
		App
		OwnRole   *string `db:"own_role"`
		GroupRank *int    `db:"group_rank"`
	}
	err := db.GetContext(ctx, &row, `
		SELECT `+AppColumns+`,
		  (SELECT w.role FROM app_workers w WHERE w.app_id = a.id AND w.user_id = $2) AS own_role,
		  (SELECT max(CASE g.role WHEN 'LABELER' THEN 1 WHEN 'REVIEWER' THEN 2 ELSE 3 END)
		     FROM app_worker_groups g JOIN worker_group_members m ON m.group_id = g.group_id
		    WHERE g.app_id = a.id AND m.user_id = $2) AS group_rank
		FROM apps a
		WHERE a.id = $1 AND a.organization_id = $3`,
		appID, p.UserID, p.OrganizationID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, httpx.NotFound("app")
	}
	if err != nil {
		return nil, err
	}
	g := &Grant{App: row.App}
	switch {
	case row.OwnerID != nil && *row.OwnerID == p.UserID:
		g.Role = Manager
	default:
		if row.OwnRole != nil {
			g.Role = ParseRole(*row.OwnRole)
		}
		if row.GroupRank != nil && Role(*row.GroupRank) > g.Role {
			g.Role = Role(*row.GroupRank)
		}
	}
	if g.Role == None {
		return nil, httpx.NotFound("app")
	}
	return g, nil
}

// Require answers 403 unless the caller acts on the app with at least the role min.
func (g *Grant) Require(min Role) error {
	if g.Role >= min {
		return nil
	}
	return httpx.Forbidden("this needs the %s role on the app; yours is %s", min, g.Role)
}

// VisibleApps is the condition on `apps a` that keeps the apps a caller may list: every app of its
// organization for organization-wide roles, otherwise the ones it owns or is a member of (directly
// or through a group). Its arguments are numbered from $argBase+1.
func VisibleApps(p *auth.Principal, argBase int) (string, []any) {
	org := dbx.Placeholder(argBase + 1)
	if OrgWide(p) {
		return "a.organization_id = " + org, []any{p.OrganizationID}
	}
	user := dbx.Placeholder(argBase + 2)
	return "a.organization_id = " + org + ` AND (a.owner_id = ` + user + `
		OR EXISTS (SELECT 1 FROM app_workers w WHERE w.app_id = a.id AND w.user_id = ` + user + `)
		OR EXISTS (SELECT 1 FROM app_worker_groups g JOIN worker_group_members m ON m.group_id = g.group_id
		           WHERE g.app_id = a.id AND m.user_id = ` + user + `))`, []any{p.OrganizationID, p.UserID}
}
