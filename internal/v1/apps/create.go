package apps

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// CreateApp creates an app owned by the caller, in the caller's organization or, for platform
// administrators, in the organization named by `org`.
func (s *Service) CreateApp(ctx context.Context, req v1api.CreateAppRequestObject) (v1api.CreateAppResponseObject, error) {
	p := auth.MustFromContext(ctx)
	in := req.Body
	if in.Name == nil {
		return nil, httpx.InvalidV1([]any{"body", "name"}, "missing", "name is required")
	}
	name, err := appName(*in.Name)
	if err != nil {
		return nil, err
	}
	org := p.OrganizationID
	if req.Params.Org != nil && *req.Params.Org != org {
		if !p.IsBackoffice() {
			return nil, httpx.Forbidden("only platform administrators may create apps in another organization")
		}
		org = *req.Params.Org
	}
	status := v1api.AppStatus("ACTIVE")
	if in.Status != nil {
		status = *in.Status
	}
	var id uuid.UUID
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := orgExists(ctx, tx, org); err != nil {
			return err
		}
		apiID, err := newAPIID(ctx, tx, org, in)
		if err != nil {
			return err
		}
		id, err = insertApp(ctx, tx, newApp{org: org, name: name, description: nullableString(in.Description.Get()),
			api: apiID, status: string(status), ttl: nullableInt(in.JobTtlSeconds.Get()),
			settings: settingsJSON(mergeSettings(access.DefaultSettings(), in.Settings)), owner: p.UserID, actor: p.Actor()})
		if err != nil {
			return err
		}
		if req.Params.CreateWorker != nil {
			return addManager(ctx, tx, id, org, *req.Params.CreateWorker)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a, err := load(ctx, s.d.DB, id)
	if err != nil {
		return nil, err
	}
	return v1api.CreateApp201JSONResponse(a), nil
}

// newApp is the row a new app (created or cloned) starts with; its owner's activity starts now.
type newApp struct {
	org, owner  uuid.UUID
	name        string
	description *string
	api         *uuid.UUID
	status      string
	ttl         *int
	settings    string
	actor       string
}

// insertApp writes a new app and answers its id; a name the organization already uses is a 400.
func insertApp(ctx context.Context, tx *sqlx.Tx, a newApp) (uuid.UUID, error) {
	var id uuid.UUID
	err := tx.GetContext(ctx, &id, `INSERT INTO apps (organization_id, name, description, api_id, status,
		job_ttl_seconds, settings, owner_id, owner_activity_at, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9) RETURNING id`,
		a.org, a.name, a.description, a.api, a.status, a.ttl, a.settings, a.owner, a.actor)
	if err != nil {
		return uuid.Nil, writeError(err, a.name)
	}
	return id, nil
}

// orgExists answers 404 for an organization that does not exist.
func orgExists(ctx context.Context, db dbx.DBTX, org uuid.UUID) error {
	var ok bool
	if err := db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1)`, org); err != nil {
		return err
	}
	if !ok {
		return httpx.NotFound("organization")
	}
	return nil
}

// newAPIID reads api_id of a new app and checks that it names a flow of the organization.
func newAPIID(ctx context.Context, db dbx.DBTX, org uuid.UUID, in *v1api.AppInput) (*uuid.UUID, error) {
	if !in.ApiId.IsSpecified() || in.ApiId.IsNull() {
		return nil, nil
	}
	id := in.ApiId.MustGet()
	if err := checkAPI(ctx, db, org, id); err != nil {
		return nil, err
	}
	return &id, nil
}

// addManager makes the user of the organization with this username (e-mail, any case) a MANAGER
// worker of the app.
func addManager(ctx context.Context, tx *sqlx.Tx, app, org uuid.UUID, username string) error {
	var user uuid.UUID
	err := tx.GetContext(ctx, &user, `SELECT id FROM users WHERE organization_id = $1 AND email = $2`, org, username)
	if errors.Is(err, sql.ErrNoRows) {
		return httpx.NotFound("user " + quote(username))
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO app_workers (app_id, user_id, organization_id, role)
		VALUES ($1, $2, $3, 'MANAGER') ON CONFLICT (app_id, user_id) DO UPDATE SET role = 'MANAGER', updated_at = now()`,
		app, user, org)
	return err
}

// nullableString and nullableInt turn a Nullable's Get into a SQL value: NULL when unset or null.
func nullableString(v string, err error) *string {
	if err != nil {
		return nil
	}
	return &v
}

func nullableInt(v int, err error) *int {
	if err != nil {
		return nil
	}
	return &v
}
