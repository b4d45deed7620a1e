package members

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
	"github.com/loopwork/loopwork/internal/v1/workers"
)

// groupAppColumns selects a WorkerGroupApp from `app_worker_groups ag JOIN worker_groups g`.
var groupAppColumns = `g.id, g.name, ag.app_id, ag.added_at, ag.updated_at, ` + rankOf("ag.role") + ` AS rank,
	(SELECT count(*) FROM worker_group_members m WHERE m.group_id = g.id) AS member_count`

var groupSort = paging.Columns{"id": "g.id", "name": "g.name", "role": rankOf("ag.role"), "added_at": "ag.added_at"}

type groupAppRow struct {
	ID          int64     `db:"id"`
	Name        string    `db:"name"`
	AppID       uuid.UUID `db:"app_id"`
	AddedAt     time.Time `db:"added_at"`
	UpdatedAt   time.Time `db:"updated_at"`
	Rank        int       `db:"rank"`
	MemberCount int       `db:"member_count"`
}

func (r groupAppRow) response() v1api.WorkerGroupApp {
	return v1api.WorkerGroupApp{WorkerGroupId: r.ID, Name: r.Name, AppUuid: r.AppID, Role: roleOfRank(r.Rank),
		MemberCount: r.MemberCount, AddedAt: r.AddedAt, UpdatedAt: r.UpdatedAt}
}

func loadGroup(ctx context.Context, db dbx.DBTX, app uuid.UUID, group int64) (v1api.WorkerGroupApp, error) {
	var r groupAppRow
	err := db.GetContext(ctx, &r, `SELECT `+groupAppColumns+` FROM app_worker_groups ag JOIN worker_groups g ON g.id = ag.group_id
		WHERE ag.app_id = $1 AND ag.group_id = $2`, app, group)
	return r.response(), err
}

// ListAppWorkerGroups lists the worker groups added to the app, with their roles.
func (s *Service) ListAppWorkerGroups(ctx context.Context, req v1api.ListAppWorkerGroupsRequestObject) (v1api.ListAppWorkerGroupsResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppUuid, access.Labeler)
	if err != nil {
		return nil, err
	}
	prm := req.Params
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy), groupSort)
	out := v1api.ListAppWorkerGroups200JSONResponse{Items: []v1api.WorkerGroupApp{}, Page: pg.Page, Size: pg.Size}
	rows, total, err := paging.List[groupAppRow](ctx, s.d.DB, pg, groupAppColumns,
		"app_worker_groups ag JOIN worker_groups g ON g.id = ag.group_id", "ag.app_id = $1", []any{g.App.ID})
	if err != nil {
		return nil, err
	}
	out.Total = total
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// changeGroup runs write on a worker group of the app's organization, as a MANAGER of the app and in
// one transaction, and answers the group's membership afterwards (zero when write removed it).
func (s *Service) changeGroup(ctx context.Context, appID uuid.UUID, group int64, write func(tx *sqlx.Tx, app access.App) error) (v1api.WorkerGroupApp, error) {
	g, _, err := s.d.Grants.Require(ctx, appID, access.Manager)
	if err != nil {
		return v1api.WorkerGroupApp{}, err
	}
	var out v1api.WorkerGroupApp
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := workers.GroupExists(ctx, tx, g.App.OrganizationID, group); err != nil {
			return err
		}
		if err := write(tx, g.App); err != nil {
			return err
		}
		out, err = loadGroup(ctx, tx, g.App.ID, group)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return out, err
}

// AddAppWorkerGroup gives every member of a group of the app's organization access with the role.
func (s *Service) AddAppWorkerGroup(ctx context.Context, req v1api.AddAppWorkerGroupRequestObject) (v1api.AddAppWorkerGroupResponseObject, error) {
	out, err := s.changeGroup(ctx, req.AppUuid, req.WorkerGroupId, func(tx *sqlx.Tx, app access.App) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO app_worker_groups (app_id, group_id, organization_id, role)
			VALUES ($1, $2, $3, $4)`, app.ID, req.WorkerGroupId, app.OrganizationID, req.Body.Role)
		return conflictOr(err, "the worker group is already a member of the app; change the role with PATCH")
	})
	if err != nil {
		return nil, err
	}
	return v1api.AddAppWorkerGroup200JSONResponse(out), nil
}

// UpdateAppWorkerGroup sets the role of a group that is a member of the app.
func (s *Service) UpdateAppWorkerGroup(ctx context.Context, req v1api.UpdateAppWorkerGroupRequestObject) (v1api.UpdateAppWorkerGroupResponseObject, error) {
	out, err := s.changeGroup(ctx, req.AppUuid, req.WorkerGroupId, func(tx *sqlx.Tx, app access.App) error {
		res, err := tx.ExecContext(ctx, `UPDATE app_worker_groups SET role = $3, updated_at = now()
			WHERE app_id = $1 AND group_id = $2`, app.ID, req.WorkerGroupId, req.Body.Role)
		if err != nil {
			return err
		}
		return affected(res, "worker group membership")
	})
	if err != nil {
		return nil, err
	}
	return v1api.UpdateAppWorkerGroup200JSONResponse(out), nil
}

// RemoveAppWorkerGroup removes a group's access to the app. Members left without any access give
// back the jobs they hold for labeling; members who still have access keep theirs.
func (s *Service) RemoveAppWorkerGroup(ctx context.Context, req v1api.RemoveAppWorkerGroupRequestObject) (v1api.RemoveAppWorkerGroupResponseObject, error) {
	_, err := s.changeGroup(ctx, req.AppUuid, req.WorkerGroupId, func(tx *sqlx.Tx, app access.App) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM app_worker_groups WHERE app_id = $1 AND group_id = $2`, app.ID, req.WorkerGroupId)
		if err != nil {
			return err
		}
		if err := affected(res, "worker group membership"); err != nil {
			return err
		}
		return releaseHeld(ctx, tx, app.ID, `SELECT user_id FROM worker_group_members WHERE group_id = $2`, req.WorkerGroupId, true)
	})
	if err != nil {
		return nil, err
	}
	return v1api.RemoveAppWorkerGroup204Response{}, nil
}
