package workers

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// AddWorkerGroupMember makes a worker a member of a group; adding a member again changes nothing,
// not even the group's updated_at.
func (s *Service) AddWorkerGroupMember(ctx context.Context, req v1api.AddWorkerGroupMemberRequestObject) (v1api.AddWorkerGroupMemberResponseObject, error) {
	org := auth.MustFromContext(ctx).OrganizationID
	var out v1api.WorkerGroup
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := GroupExists(ctx, tx, org, req.WorkerGroupId); err != nil {
			return err
		}
		user, err := UserOf(ctx, tx, org, req.WorkerId)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO worker_group_members (group_id, user_id, organization_id)
			VALUES ($1, $2, $3) ON CONFLICT (group_id, user_id) DO NOTHING`, req.WorkerGroupId, user, org)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n > 0 {
			if err := touch(ctx, tx, req.WorkerGroupId); err != nil {
				return err
			}
		}
		out, err = loadGroup(ctx, tx, org, req.WorkerGroupId)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v1api.AddWorkerGroupMember200JSONResponse(out), nil
}

// RemoveWorkerGroupMember removes a worker from a group; a worker who is not a member answers 404.
func (s *Service) RemoveWorkerGroupMember(ctx context.Context, req v1api.RemoveWorkerGroupMemberRequestObject) (v1api.RemoveWorkerGroupMemberResponseObject, error) {
	org := auth.MustFromContext(ctx).OrganizationID
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := GroupExists(ctx, tx, org, req.WorkerGroupId); err != nil {
			return err
		}
		user, err := UserOf(ctx, tx, org, req.WorkerId)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM worker_group_members WHERE group_id = $1 AND user_id = $2`,
			req.WorkerGroupId, user)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return httpx.NotFound("membership of the worker in the group")
		}
		return touch(ctx, tx, req.WorkerGroupId)
	})
	if err != nil {
		return nil, err
	}
	return v1api.RemoveWorkerGroupMember204Response{}, nil
}

// touch records that a group's member list changed.
func touch(ctx context.Context, tx *sqlx.Tx, group int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE worker_groups SET updated_at = now() WHERE id = $1`, group)
	return err
}
