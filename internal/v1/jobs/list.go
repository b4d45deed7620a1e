package jobs

import (
	"context"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// ListJobs answers a page of the app's jobs that match the filters.
func (s *Service) ListJobs(ctx context.Context, req v1api.ListJobsRequestObject) (v1api.ListJobsResponseObject, error) {
	g, _, sel, err := s.filtered(ctx, req.AppId, req.Params, nil)
	if err != nil {
		return nil, err
	}
	prm := req.Params
	items, total, page, size, err := s.jobList(ctx, g, sel, prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy))
	if err != nil {
		return nil, err
	}
	return v1api.ListJobs200JSONResponse{Items: items, Total: total, Page: page, Size: size}, nil
}

// ListCollaboratorJobs answers a page of the jobs the caller labeled (it is their labeled_by), reviewed
// (it gave a verdict) or holds for labeling. The three come from small partial indexes, not from a
// walk over the app's jobs.
func (s *Service) ListCollaboratorJobs(ctx context.Context, req v1api.ListCollaboratorJobsRequestObject) (v1api.ListCollaboratorJobsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	g, _, sel, err := s.filtered(ctx, req.AppId, req.Params, []any{p.UserID}, `j.id IN (
		SELECT id FROM jobs WHERE app_id = $1 AND labeled_by = $3
		UNION SELECT id FROM jobs WHERE app_id = $1 AND assigned_to = $3 AND lock_expires_at > now()
		UNION SELECT job_id FROM job_feedback WHERE app_id = $1 AND author = $3 AND correct IS NOT NULL)`)
	if err != nil {
		return nil, err
	}
	prm := req.Params
	items, total, page, size, err := s.jobList(ctx, g, sel, prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy))
	if err != nil {
		return nil, err
	}
	return v1api.ListCollaboratorJobs200JSONResponse{Items: items, Total: total, Page: page, Size: size}, nil
}

// jobList reads one page of a selection and its total.
func (s *Service) jobList(ctx context.Context, g *access.Grant, sel selection, page, size *int, sortBy, orderBy *string) ([]v1api.Job, int64, int, int, error) {
	pg, order := jobPage(page, size, sortBy, orderBy)
	q, args := sel.paged(`SELECT `+Columns+` FROM jobs j WHERE `+sel.cond+` ORDER BY `+order, pg)
	rows, err := selectRows(ctx, s.reader(), q, args...)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	ptrs := make([]*Row, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i]
	}
	if err := withUsernames(ctx, s.reader(), ptrs...); err != nil {
		return nil, 0, 0, 0, err
	}
	total, err := s.total(ctx, g, sel, pg, len(rows))
	if err != nil {
		return nil, 0, 0, 0, err
	}
	items := make([]v1api.Job, len(rows))
	for i, r := range rows {
		items[i] = ToResponse(r)
	}
	return items, total, pg.Page, pg.Size, nil
}

// ListJobIds answers a page of the ids of the app's jobs that match the filters.
func (s *Service) ListJobIds(ctx context.Context, req v1api.ListJobIdsRequestObject) (v1api.ListJobIdsResponseObject, error) {
	g, _, sel, err := s.filtered(ctx, req.AppId, req.Params, nil)
	if err != nil {
		return nil, err
	}
	prm := req.Params
	pg, order := jobPage(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy))
	q, args := sel.paged(`SELECT j.id FROM jobs j WHERE `+sel.cond+` ORDER BY `+order, pg)
	ids := []int64{}
	if err := s.reader().SelectContext(ctx, &ids, q, args...); err != nil {
		return nil, err
	}
	total, err := s.total(ctx, g, sel, pg, len(ids))
	if err != nil {
		return nil, err
	}
	return v1api.ListJobIds200JSONResponse{Items: ids, Total: total, Page: pg.Page, Size: pg.Size}, nil
}

// rowWithFeedback is a job with one of its feedback messages, whose columns are named fb.<column>.
type rowWithFeedback struct {
	Row
	Fb Feedback `db:"fb"`
}

// ListJobsWithFeedbackMessage answers a page of the jobs with feedback, each with its latest message
// (the latest before feedbackMessageCreatedBefore when given), found per job of the page through the
// (job_id, created_at) index.
func (s *Service) ListJobsWithFeedbackMessage(ctx context.Context, req v1api.ListJobsWithFeedbackMessageRequestObject) (v1api.ListJobsWithFeedbackMessageResponseObject, error) {
	g, set, sel, err := s.filtered(ctx, req.AppId, req.Params, nil, "j.feedback_count > 0")
	if err != nil {
		return nil, err
	}
	prm := req.Params
	pg, order := jobPage(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy))
	count := sel
	before := ""
	if set.FeedbackMessageCreatedBefore != nil {
		before = " AND f.created_at < " + sel.add(*set.FeedbackMessageCreatedBefore)
	}
	q := `SELECT ` + Columns + `, f.id AS "fb.id", f.job_id AS "fb.job_id", f.message AS "fb.message",
		       f.feedback_tags AS "fb.feedback_tags", f.correct AS "fb.correct",
		       (SELECT u.email::text FROM users u WHERE u.id = f.author) AS "fb.author_name", f.created_at AS "fb.created_at"
		FROM jobs j
		CROSS JOIN LATERAL (SELECT * FROM job_feedback f WHERE f.job_id = j.id` + before + `
		                    ORDER BY f.created_at DESC, f.id DESC LIMIT 1) f
		WHERE ` + sel.cond + ` ORDER BY ` + order
	q, args := sel.paged(q, pg)
	var rows []rowWithFeedback
	if err := s.reader().SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	ptrs := make([]*Row, len(rows))
	for i := range rows {
		ptrs[i] = &rows[i].Row
	}
	if err := withUsernames(ctx, s.reader(), ptrs...); err != nil {
		return nil, err
	}
	total, err := s.total(ctx, g, count, pg, len(rows))
	if err != nil {
		return nil, err
	}
	items := make([]v1api.JobWithFeedbackMessage, len(rows))
	for i, r := range rows {
		items[i] = v1api.JobWithFeedbackMessage{Job: ToResponse(r.Row), FeedbackMessage: r.Fb.Response()}
	}
	return v1api.ListJobsWithFeedbackMessage200JSONResponse{Items: items, Total: total, Page: pg.Page, Size: pg.Size}, nil
}
