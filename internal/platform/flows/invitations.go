package flows

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// InviteFlowUsers invites active users of the flow's organization who may review and publish; the
// others are reported as skipped, so the reply reveals nothing of other organizations' users.
func (s *Service) InviteFlowUsers(ctx context.Context, req platformapi.InviteFlowUsersRequestObject) (platformapi.InviteFlowUsersResponseObject, error) {
	c := callerOf(ctx)
	asked := distinct(req.Body.UserIds)
	out := platformapi.InviteFlowUsers200JSONResponse{FlowId: req.Id, InvitedUserIds: []uuid.UUID{}, SkippedUserIds: []uuid.UUID{}}
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := ownFlow(ctx, tx, c, req.Id, true)
		if err != nil {
			return err
		}
		if !f.administrable(c) {
			return httpx.Forbidden("only the flow's creator and administrators of its organization may invite users to it")
		}
		var eligible []uuid.UUID
		// Invitations of one call are stamped one after another in request order, so the list (oldest
		// first) shows them as they were asked for.
		if err := tx.SelectContext(ctx, &eligible, `WITH ok AS (
				SELECT u.id, a.ord FROM unnest($2::uuid[]) WITH ORDINALITY AS a (id, ord) JOIN users u ON u.id = a.id
				WHERE u.organization_id = $3 AND u.is_active AND u.role IN ('org_admin', 'backoffice', 'app_user')),
			ins AS (INSERT INTO flow_invitations (flow_id, user_id, organization_id, modified_by, created_at, updated_at)
				SELECT $1, id, $3, $4, clock_timestamp(), clock_timestamp() FROM ok ORDER BY ord
				ON CONFLICT (flow_id, user_id) DO NOTHING)
			SELECT id FROM ok`, f.ID, pq.Array(asked), c.org, c.actor); err != nil {
			return err
		}
		ok := make(map[uuid.UUID]bool, len(eligible))
		for _, id := range eligible {
			ok[id] = true
		}
		for _, id := range asked {
			if ok[id] {
				out.InvitedUserIds = append(out.InvitedUserIds, id)
			} else {
				out.SkippedUserIds = append(out.SkippedUserIds, id)
			}
		}
		// The statement's own inserts are not visible to its SELECT, so the total is read after it.
		return tx.GetContext(ctx, &out.TotalInvitations, `SELECT count(*) FROM flow_invitations WHERE flow_id = $1`, f.ID)
	})
	if err != nil {
		return nil, err
	}
	out.Message = fmt.Sprintf("%d %s invited, %d skipped", len(out.InvitedUserIds), plural(len(out.InvitedUserIds), "user", "users"), len(out.SkippedUserIds))
	return out, nil
}

// ListFlowInvitations lists the flow's invited users, oldest invitation first, to callers of its
// organization who may see it.
func (s *Service) ListFlowInvitations(ctx context.Context, req platformapi.ListFlowInvitationsRequestObject) (platformapi.ListFlowInvitationsResponseObject, error) {
	c := callerOf(ctx)
	f, err := ownFlow(ctx, s.db, c, req.Id, false)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		UserID    uuid.UUID `db:"user_id"`
		Email     string    `db:"email"`
		FirstName string    `db:"first_name"`
		LastName  string    `db:"last_name"`
		Role      string    `db:"role"`
		CreatedAt time.Time `db:"created_at"`
		UpdatedAt time.Time `db:"updated_at"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT i.user_id, u.email, u.first_name, u.last_name, u.role,
		i.created_at, i.updated_at FROM flow_invitations i JOIN users u ON u.id = i.user_id
		WHERE i.flow_id = $1 ORDER BY i.created_at, i.user_id`, f.ID); err != nil {
		return nil, err
	}
	out := make(platformapi.ListFlowInvitations200JSONResponse, 0, len(rows))
	for _, r := range rows {
		out = append(out, platformapi.FlowInvitationResponse{FlowId: f.ID, UserId: r.UserID, Email: openapi_types.Email(r.Email),
			FirstName: r.FirstName, LastName: r.LastName, Role: platformapi.UserRole(r.Role), OrganizationId: f.Org,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
	}
	return out, nil
}

// RevokeFlowInvitation removes an invitation; the invited user may also remove its own, to leave a flow.
func (s *Service) RevokeFlowInvitation(ctx context.Context, req platformapi.RevokeFlowInvitationRequestObject) (platformapi.RevokeFlowInvitationResponseObject, error) {
	c := callerOf(ctx)
	f, err := ownFlow(ctx, s.db, c, req.Id, false)
	if err != nil {
		return nil, err
	}
	if !f.administrable(c) && req.UserId != c.user {
		return nil, httpx.Forbidden("only the flow's creator, administrators of its organization and the invited user may revoke an invitation")
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM flow_invitations WHERE flow_id = $1 AND user_id = $2`, f.ID, req.UserId)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, httpx.NotFound("invitation")
	}
	return platformapi.RevokeFlowInvitation204Response{}, nil
}

// distinct keeps the first occurrence of each id, in order.
func distinct(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
