package apps

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

// clonePlan is what a clone mode decides: where the copy goes, who owns it, and what it carries.
type clonePlan struct {
	org          uuid.UUID
	owner        uuid.UUID
	ownerIsOnly  bool // MEMBER_OWNED_COPY: the owner becomes the copy's only member
	copyTags     bool
	copyMembers  bool
	copyMeasurer bool
	explicitName *string
}

// CloneApp copies an app's settings (never its jobs, exports or measurements) into a new app, as the
// clone mode says. The caller needs the MANAGER role on the source app.
func (s *Service) CloneApp(ctx context.Context, req v1api.CloneAppRequestObject) (v1api.CloneAppResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	in := v1api.AppClone{}
	if req.Body != nil {
		in = *req.Body
	}
	mode := v1api.CloneAppParamsCloneMode("FULL_COPY")
	if req.Params.CloneMode != nil {
		mode = *req.Params.CloneMode
	}
	var id uuid.UUID
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		plan, err := planClone(ctx, tx, p, g.App, mode, in)
		if err != nil {
			return err
		}
		id, err = insertCopy(ctx, tx, p, g.App, plan)
		return err
	})
	if err != nil {
		return nil, err
	}
	a, err := load(ctx, s.d.DB, id)
	if err != nil {
		return nil, err
	}
	return v1api.CloneApp200JSONResponse(a), nil
}

// planClone applies the rules of each mode. Members travel only within the source's organization,
// where their users are.
func planClone(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, src access.App, mode v1api.CloneAppParamsCloneMode,
	in v1api.AppClone) (clonePlan, error) {
	plan := clonePlan{org: src.OrganizationID, owner: p.UserID, copyTags: flag(in.IncludeTags),
		copyMembers: flag(in.IncludeMembers), copyMeasurer: flag(in.IncludeMeasurerConfiguration), explicitName: in.Name}
	switch mode {
	case "ORGANIZATION_OWNED_COPY":
		if in.OrganizationId != nil {
			plan.org = *in.OrganizationId
		}
		if p.Role != auth.RoleOrgAdmin || p.OrganizationID != plan.org {
			return plan, httpx.Forbidden("an organization-owned copy needs the org_admin role in the target organization")
		}
		plan.copyMembers = false
	case "MEMBER_OWNED_COPY":
		plan.copyMembers, plan.ownerIsOnly = false, true
		if in.OwnerUsername != nil {
			err := tx.GetContext(ctx, &plan.owner, `SELECT id FROM users WHERE organization_id = $1 AND email = $2`,
				plan.org, *in.OwnerUsername)
			if errors.Is(err, sql.ErrNoRows) {
				return plan, httpx.NotFound("owner " + quote(*in.OwnerUsername))
			}
			if err != nil {
				return plan, err
			}
		}
	case "SYS_ADMIN":
		if !p.IsBackoffice() {
			return plan, httpx.Forbidden("the SYS_ADMIN clone mode is for platform administrators")
		}
		if in.OrganizationId != nil {
			plan.org = *in.OrganizationId
		}
		if err := orgExists(ctx, tx, plan.org); err != nil {
			return plan, err
		}
		plan.copyMembers = plan.copyMembers && plan.org == src.OrganizationID
	}
	return plan, nil
}

// insertCopy writes the new app and what the plan copies. A flow of another organization is not
// carried into the copy: an app may only be an instance of its own organization's flows.
func insertCopy(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, src access.App, plan clonePlan) (uuid.UUID, error) {
	name, err := copyName(ctx, tx, plan, src.Name)
	if err != nil {
		return uuid.Nil, err
	}
	api := src.APIID
	if plan.org != src.OrganizationID {
		api = nil
	}
	id, err := insertApp(ctx, tx, newApp{org: plan.org, name: name, description: src.Description, api: api,
		status: src.Status, ttl: src.JobTTLSeconds, settings: string(src.Settings), owner: plan.owner, actor: p.Actor()})
	if err != nil {
		return uuid.Nil, err
	}
	if plan.copyTags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO app_tags (app_id, tag, organization_id, description, color)
			SELECT $1, tag, $2, description, color FROM app_tags WHERE app_id = $3`, id, plan.org, src.ID); err != nil {
			return uuid.Nil, err
		}
	}
	if plan.copyMembers {
		if _, err := tx.ExecContext(ctx, `INSERT INTO app_workers (app_id, user_id, organization_id, role)
			SELECT $1, user_id, organization_id, role FROM app_workers WHERE app_id = $2`, id, src.ID); err != nil {
			return uuid.Nil, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO app_worker_groups (app_id, group_id, organization_id, role)
			SELECT $1, group_id, organization_id, role FROM app_worker_groups WHERE app_id = $2`, id, src.ID); err != nil {
			return uuid.Nil, err
		}
	}
	if plan.copyMeasurer {
		if err := measurerconfig.CopyConfiguration(ctx, tx, src.ID, id, plan.org, p.Actor()); err != nil {
			return uuid.Nil, err
		}
	}
	if plan.ownerIsOnly {
		if _, err := tx.ExecContext(ctx, `INSERT INTO app_workers (app_id, user_id, organization_id, role)
			VALUES ($1, $2, $3, 'MANAGER')`, id, plan.owner, plan.org); err != nil {
			return uuid.Nil, err
		}
	}
	return id, nil
}

// copyName is the name sent, or the source's name followed by " (copy)", numbered when that is taken.
func copyName(ctx context.Context, tx *sqlx.Tx, plan clonePlan, source string) (string, error) {
	if plan.explicitName != nil {
		return appName(*plan.explicitName)
	}
	for n := 1; ; n++ {
		name := source + " (copy)"
		if n > 1 {
			name = fmt.Sprintf("%s (copy %d)", source, n)
		}
		var taken bool
		if err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM apps
			WHERE organization_id = $1 AND lower(name) = lower($2))`, plan.org, name); err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
}

// flag reads an include_* option, true unless sent as false.
func flag(b *bool) bool { return b == nil || *b }
