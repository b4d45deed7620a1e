package workers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// groupColumns selects a WorkerGroup from `worker_groups g` with its members' worker ids, ascending.
const groupColumns = `g.id, g.name, g.created_at, g.updated_at,
	coalesce((SELECT array_agg(u.worker_id ORDER BY u.worker_id) FROM worker_group_members m
	            JOIN users u ON u.id = m.user_id WHERE m.group_id = g.id), '{}') AS worker_ids`

type groupRow struct {
	ID        int64         `db:"id"`
	Name      string        `db:"name"`
	CreatedAt time.Time     `db:"created_at"`
	UpdatedAt time.Time     `db:"updated_at"`
	WorkerIDs pq.Int64Array `db:"worker_ids"`
}

func (r groupRow) response() v1api.WorkerGroup {
	ids := []int64(r.WorkerIDs)
	if ids == nil {
		ids = []int64{}
	}
	return v1api.WorkerGroup{WorkerGroupId: r.ID, Name: r.Name, MemberCount: len(ids), WorkerIds: ids,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// GroupExists answers the 404 of a worker group that does not exist or belongs to another organization.
func GroupExists(ctx context.Context, db dbx.DBTX, org uuid.UUID, group int64) error {
	var ok bool
	if err := db.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM worker_groups WHERE organization_id = $1 AND id = $2)`,
		org, group); err != nil {
		return err
	}
	if !ok {
		return httpx.NotFound("worker group")
	}
	return nil
}

func loadGroup(ctx context.Context, db dbx.DBTX, org uuid.UUID, id int64) (v1api.WorkerGroup, error) {
	var r groupRow
	err := db.GetContext(ctx, &r, `SELECT `+groupColumns+` FROM worker_groups g WHERE g.organization_id = $1 AND g.id = $2`, org, id)
	if errors.Is(err, sql.ErrNoRows) {
		return v1api.WorkerGroup{}, httpx.NotFound("worker group")
	}
	return r.response(), err
}

// nameError maps a write that clashed with another group's name (compared ignoring case) to 409.
func nameError(err error, name string) error {
	if errors.Is(dbx.Translate(err), dbx.ErrConflict) {
		return httpx.Conflict("a worker group named %q exists already", name)
	}
	return err
}

// ListWorkerGroups lists the organization's worker groups with their members.
func (s *Service) ListWorkerGroups(ctx context.Context, req v1api.ListWorkerGroupsRequestObject) (v1api.ListWorkerGroupsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	prm := req.Params
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy),
		paging.Columns{"id": "g.id", "name": "g.name"})
	out := v1api.ListWorkerGroups200JSONResponse{Items: []v1api.WorkerGroup{}, Page: pg.Page, Size: pg.Size}
	if err := s.d.DB.GetContext(ctx, &out.Total, `SELECT count(*) FROM worker_groups WHERE organization_id = $1`,
		p.OrganizationID); err != nil {
		return nil, err
	}
	var rows []groupRow
	if err := s.d.DB.SelectContext(ctx, &rows, `SELECT `+groupColumns+` FROM worker_groups g WHERE g.organization_id = $1
		ORDER BY `+pg.OrderBy()+` OFFSET $2 LIMIT $3`, p.OrganizationID, pg.Offset(), pg.Limit()); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// CreateWorkerGroup creates a group with its first members, all of the caller's organization.
func (s *Service) CreateWorkerGroup(ctx context.Context, req v1api.CreateWorkerGroupRequestObject) (v1api.CreateWorkerGroupResponseObject, error) {
	p := auth.MustFromContext(ctx)
	name := strings.TrimSpace(req.Body.Name)
	var ids []int64
	if req.Body.WorkerIds != nil {
		ids = *req.Body.WorkerIds
	}
	var out v1api.WorkerGroup
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		users, err := usersOf(ctx, tx, p.OrganizationID, ids)
		if err != nil {
			return err
		}
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO worker_groups (organization_id, name) VALUES ($1, $2) RETURNING id`,
			p.OrganizationID, name); err != nil {
			return nameError(err, name)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO worker_group_members (group_id, user_id, organization_id)
			SELECT $1, unnest($2::uuid[]), $3`, id, pq.Array(users), p.OrganizationID); err != nil {
			return err
		}
		out, err = loadGroup(ctx, tx, p.OrganizationID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v1api.CreateWorkerGroup201JSONResponse(out), nil
}

// usersOf returns the users behind distinct worker ids of the organization, or the 404 naming the
// smallest id that is not one of its workers.
func usersOf(ctx context.Context, db dbx.DBTX, org uuid.UUID, workerIDs []int64) ([]string, error) {
	if len(workerIDs) == 0 {
		return []string{}, nil
	}
	var rows []struct {
		WorkerID int64  `db:"worker_id"`
		ID       string `db:"id"`
	}
	if err := db.SelectContext(ctx, &rows, `SELECT worker_id, id FROM users WHERE organization_id = $1 AND worker_id = ANY($2)`,
		org, pq.Int64Array(workerIDs)); err != nil {
		return nil, err
	}
	found := make(map[int64]bool, len(rows))
	users := make([]string, 0, len(rows))
	for _, r := range rows {
		found[r.WorkerID] = true
		users = append(users, r.ID)
	}
	missing := []int64{}
	for _, w := range workerIDs {
		if !found[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
		return nil, httpx.NotFound(fmt.Sprintf("worker %d", missing[0]))
	}
	return users, nil
}

// GetWorkerGroup answers a group of the caller's organization.
func (s *Service) GetWorkerGroup(ctx context.Context, req v1api.GetWorkerGroupRequestObject) (v1api.GetWorkerGroupResponseObject, error) {
	g, err := loadGroup(ctx, s.d.DB, auth.MustFromContext(ctx).OrganizationID, req.WorkerGroupId)
	if err != nil {
		return nil, err
	}
	return v1api.GetWorkerGroup200JSONResponse(g), nil
}

// RenameWorkerGroup renames a group; names stay unique in the organization, ignoring case.
func (s *Service) RenameWorkerGroup(ctx context.Context, req v1api.RenameWorkerGroupRequestObject) (v1api.RenameWorkerGroupResponseObject, error) {
	org := auth.MustFromContext(ctx).OrganizationID
	name := strings.TrimSpace(req.Body.Name)
	res, err := s.d.DB.ExecContext(ctx, `UPDATE worker_groups SET name = $3, updated_at = now()
		WHERE organization_id = $1 AND id = $2`, org, req.WorkerGroupId, name)
	if err != nil {
		return nil, nameError(err, name)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, httpx.NotFound("worker group")
	}
	g, err := loadGroup(ctx, s.d.DB, org, req.WorkerGroupId)
	if err != nil {
		return nil, err
	}
	return v1api.RenameWorkerGroup200JSONResponse(g), nil
}

// DeleteWorkerGroup deletes a group; its app memberships and member list go with it, so its members
// keep only the access they have on their own or through other groups.
func (s *Service) DeleteWorkerGroup(ctx context.Context, req v1api.DeleteWorkerGroupRequestObject) (v1api.DeleteWorkerGroupResponseObject, error) {
	org := auth.MustFromContext(ctx).OrganizationID
	res, err := s.d.DB.ExecContext(ctx, `DELETE FROM worker_groups WHERE organization_id = $1 AND id = $2`, org, req.WorkerGroupId)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, httpx.NotFound("worker group")
	}
	return v1api.DeleteWorkerGroup204Response{}, nil
}
