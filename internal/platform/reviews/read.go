package reviews

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/users"
)

// GetHumanReviewTask reads one review the caller may read.
func (s *Service) GetHumanReviewTask(ctx context.Context, req platformapi.GetHumanReviewTaskRequestObject) (platformapi.GetHumanReviewTaskResponseObject, error) {
	r, err := readable(ctx, s.db, auth.MustFromContext(ctx), req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := r.response()
	return platformapi.GetHumanReviewTask200JSONResponse(out), err
}

// ListHumanReviewTasks lists the reviews the caller may read, newest first.
func (s *Service) ListHumanReviewTasks(ctx context.Context, req platformapi.ListHumanReviewTasksRequestObject) (platformapi.ListHumanReviewTasksResponseObject, error) {
	p := auth.MustFromContext(ctx)
	q := req.Params
	page := httpx.NewPaging(q.Page, q.Limit)
	where := readableCond(p, "$1", "$2")
	args := []any{p.OrganizationID, p.UserID}
	if q.Status != nil {
		args = append(args, string(*q.Status))
		where += fmt.Sprintf(` AND r.status = $%d`, len(args))
	}
	if q.FlowExecutionId != nil {
		args = append(args, *q.FlowExecutionId)
		where += fmt.Sprintf(` AND r.flow_execution_id = $%d`, len(args))
	}
	if q.AssignedToMe != nil && *q.AssignedToMe {
		where += ` AND EXISTS (SELECT 1 FROM human_review_assignments m WHERE m.human_review_task_id = r.id
			AND m.user_id = $2 AND m.status <> 'cancelled')`
	}
	from := ` FROM human_review_tasks r JOIN flow_executions x ON x.id = r.flow_execution_id
		JOIN flows f ON f.id = x.flow_id WHERE ` + where
	out := platformapi.ListHumanReviewTasks200JSONResponse{HumanReviewTasks: []platformapi.HumanReviewTaskResponse{},
		Page: page.Page, Limit: page.Limit}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*)`+from, args...); err != nil {
		return nil, err
	}
	var rows []reviewRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+columns+from+fmt.Sprintf(` ORDER BY r.created_at DESC, r.id DESC
		LIMIT %d OFFSET %d`, page.Limit, page.Offset()), args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		v, err := r.response()
		if err != nil {
			return nil, err
		}
		out.HumanReviewTasks = append(out.HumanReviewTasks, v)
	}
	return out, nil
}

// ListHumanReviewTaskAssignments lists a readable review's assignments, oldest first.
func (s *Service) ListHumanReviewTaskAssignments(ctx context.Context, req platformapi.ListHumanReviewTaskAssignmentsRequestObject) (platformapi.ListHumanReviewTaskAssignmentsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := readable(ctx, s.db, p, req.Id, false)
	if err != nil {
		return nil, err
	}
	var rows []assignmentRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+assignmentColumns+` FROM human_review_assignments a
		WHERE a.human_review_task_id = $1 ORDER BY a.created_at, a.id`, r.ID); err != nil {
		return nil, err
	}
	list, err := s.render(ctx, rows, req.Params.IncludeUserInfo)
	return platformapi.ListHumanReviewTaskAssignments200JSONResponse(list), err
}

// ListMyHumanReviewAssignments is the caller's work queue, newest first.
func (s *Service) ListMyHumanReviewAssignments(ctx context.Context, req platformapi.ListMyHumanReviewAssignmentsRequestObject) (platformapi.ListMyHumanReviewAssignmentsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	q := req.Params
	page := httpx.NewPaging(q.Page, q.Limit)
	where := `a.user_id = $1 AND a.organization_id = $2`
	args := []any{p.UserID, p.OrganizationID}
	if q.Status != nil {
		args = append(args, string(*q.Status))
		where += ` AND a.status = $3`
	}
	out := platformapi.ListMyHumanReviewAssignments200JSONResponse{Page: page.Page, Limit: page.Limit}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*) FROM human_review_assignments a WHERE `+where, args...); err != nil {
		return nil, err
	}
	var rows []assignmentRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+assignmentColumns+` FROM human_review_assignments a WHERE `+where+
		fmt.Sprintf(` ORDER BY a.created_at DESC, a.id DESC LIMIT %d OFFSET %d`, page.Limit, page.Offset()), args...); err != nil {
		return nil, err
	}
	var err error
	out.Assignments, err = s.render(ctx, rows, q.IncludeUserInfo)
	return out, err
}

// render turns assignments into responses, with their users' records when asked (one query for all).
func (s *Service) render(ctx context.Context, rows []assignmentRow, withUsers *platformapi.IncludeUserInfo) ([]platformapi.HumanReviewTaskAssignmentResponse, error) {
	out := make([]platformapi.HumanReviewTaskAssignmentResponse, 0, len(rows))
	for _, a := range rows {
		out = append(out, a.response())
	}
	if withUsers == nil || !*withUsers || len(rows) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(rows))
	for i, a := range rows {
		ids[i] = a.User
	}
	var us []users.UserRow
	if err := s.db.SelectContext(ctx, &us, `SELECT `+users.SelectColumns+` FROM users u WHERE u.id = ANY($1)`, pq.Array(ids)); err != nil {
		return nil, dbx.Translate(err)
	}
	by := make(map[uuid.UUID]platformapi.UserResponse, len(us))
	for _, u := range us {
		by[u.ID] = users.ToResponse(u)
	}
	for i := range out {
		if u, ok := by[out[i].UserId]; ok {
			out[i].User = &u
		}
	}
	return out, nil
}
