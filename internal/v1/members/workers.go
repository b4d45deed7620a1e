package members

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
	"github.com/loopwork/loopwork/internal/v1/workers"
)

// workerAppColumns selects a WorkerApp from `app_workers w JOIN users u`: the worker's own role and
// its effective role, the highest of its own and its groups' roles on the app.
var workerAppColumns = `u.worker_id, u.email, w.app_id, w.added_at, w.updated_at, ` + rankOf("w.role") + ` AS own_rank,
	greatest(` + rankOf("w.role") + `, coalesce((SELECT max(` + rankOf("g.role") + `) FROM app_worker_groups g
	  JOIN worker_group_members m ON m.group_id = g.group_id WHERE g.app_id = w.app_id AND m.user_id = w.user_id), 0)) AS effective_rank`

var workerSort = paging.Columns{"id": "u.worker_id", "username": "u.email", "role": rankOf("w.role"), "added_at": "w.added_at"}

type workerAppRow struct {
	WorkerID      int64     `db:"worker_id"`
	Email         string    `db:"email"`
	AppID         uuid.UUID `db:"app_id"`
	AddedAt       time.Time `db:"added_at"`
	UpdatedAt     time.Time `db:"updated_at"`
	OwnRank       int       `db:"own_rank"`
	EffectiveRank int       `db:"effective_rank"`
}

func (r workerAppRow) response() v1api.WorkerApp {
	email := openapi_types.Email(r.Email)
	return v1api.WorkerApp{WorkerId: r.WorkerID, Username: r.Email, Email: &email, AppUuid: r.AppID,
		Role: roleOfRank(r.OwnRank), EffectiveRole: roleOfRank(r.EffectiveRank), AddedAt: r.AddedAt, UpdatedAt: r.UpdatedAt}
}

func loadWorker(ctx context.Context, db dbx.DBTX, app, user uuid.UUID) (v1api.WorkerApp, error) {
	var r workerAppRow
	err := db.GetContext(ctx, &r, `SELECT `+workerAppColumns+` FROM app_workers w JOIN users u ON u.id = w.user_id
		WHERE w.app_id = $1 AND w.user_id = $2`, app, user)
	return r.response(), err
}

// ListAppWorkers lists the workers added to the app individually, with their roles.
func (s *Service) ListAppWorkers(ctx context.Context, req v1api.ListAppWorkersRequestObject) (v1api.ListAppWorkersResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppUuid, access.Labeler)
	if err != nil {
		return nil, err
	}
	prm := req.Params
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy), workerSort)
	out := v1api.ListAppWorkers200JSONResponse{Items: []v1api.WorkerApp{}, Page: pg.Page, Size: pg.Size}
	rows, total, err := paging.List[workerAppRow](ctx, s.d.DB, pg, workerAppColumns,
		"app_workers w JOIN users u ON u.id = w.user_id", "w.app_id = $1", []any{g.App.ID})
	if err != nil {
		return nil, err
	}
	out.Total = total
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// GetAppWorkerByUsername answers a worker's own membership of the app, found by e-mail in any case.
func (s *Service) GetAppWorkerByUsername(ctx context.Context, req v1api.GetAppWorkerByUsernameRequestObject) (v1api.GetAppWorkerByUsernameResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppUuid, access.Labeler)
	if err != nil {
		return nil, err
	}
	var r workerAppRow
	err = s.d.DB.GetContext(ctx, &r, `SELECT `+workerAppColumns+` FROM app_workers w JOIN users u ON u.id = w.user_id
		WHERE w.app_id = $1 AND u.email = $2`, g.App.ID, req.Username)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, httpx.NotFound("worker")
	}
	if err != nil {
		return nil, err
	}
	return v1api.GetAppWorkerByUsername200JSONResponse(r.response()), nil
}

// changeWorker runs write on a worker of the app's organization, as a MANAGER of the app and in one
// transaction, and answers the worker's membership afterwards (zero when write removed it).
func (s *Service) changeWorker(ctx context.Context, appID uuid.UUID, workerID int64,
	write func(tx *sqlx.Tx, app access.App, user uuid.UUID) error) (v1api.WorkerApp, error) {
	g, _, err := s.d.Grants.Require(ctx, appID, access.Manager)
	if err != nil {
		return v1api.WorkerApp{}, err
	}
	var out v1api.WorkerApp
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		user, err := workers.UserOf(ctx, tx, g.App.OrganizationID, workerID)
		if err != nil {
			return err
		}
		if err := write(tx, g.App, user); err != nil {
			return err
		}
		out, err = loadWorker(ctx, tx, g.App.ID, user)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return out, err
}

// AddAppWorker gives a worker of the app's organization its own membership with a role.
func (s *Service) AddAppWorker(ctx context.Context, req v1api.AddAppWorkerRequestObject) (v1api.AddAppWorkerResponseObject, error) {
	out, err := s.changeWorker(ctx, req.AppUuid, req.WorkerId, func(tx *sqlx.Tx, app access.App, user uuid.UUID) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, $4)`,
			app.ID, user, app.OrganizationID, req.Body.Role)
		return conflictOr(err, "the worker is already a member of the app; change the role with PATCH")
	})
	if err != nil {
		return nil, err
	}
	return v1api.AddAppWorker200JSONResponse(out), nil
}

// UpdateAppWorker sets the role of a worker who is a member of the app.
func (s *Service) UpdateAppWorker(ctx context.Context, req v1api.UpdateAppWorkerRequestObject) (v1api.UpdateAppWorkerResponseObject, error) {
	out, err := s.changeWorker(ctx, req.AppUuid, req.WorkerId, func(tx *sqlx.Tx, app access.App, user uuid.UUID) error {
		res, err := tx.ExecContext(ctx, `UPDATE app_workers SET role = $3, updated_at = now() WHERE app_id = $1 AND user_id = $2`,
			app.ID, user, req.Body.Role)
		if err != nil {
			return err
		}
		return affected(res, "worker membership")
	})
	if err != nil {
		return nil, err
	}
	return v1api.UpdateAppWorker200JSONResponse(out), nil
}

// RemoveAppWorker removes a worker's own membership (group access stays) and releases the jobs the
// worker holds for labeling on the app.
func (s *Service) RemoveAppWorker(ctx context.Context, req v1api.RemoveAppWorkerRequestObject) (v1api.RemoveAppWorkerResponseObject, error) {
	_, err := s.changeWorker(ctx, req.AppUuid, req.WorkerId, func(tx *sqlx.Tx, app access.App, user uuid.UUID) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM app_workers WHERE app_id = $1 AND user_id = $2`, app.ID, user)
		if err != nil {
			return err
		}
		if err := affected(res, "worker membership"); err != nil {
			return err
		}
		return releaseHeld(ctx, tx, app.ID, `$2::uuid`, user, false)
	})
	if err != nil {
		return nil, err
	}
	return v1api.RemoveAppWorker204Response{}, nil
}
