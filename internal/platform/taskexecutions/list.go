package taskexecutions

import (
	"context"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
)

// defaultLimit is the page size when the caller names none; the contract caps limit at 1,000.
const defaultLimit = 100

// ListTaskExecutionRecords lists the attempts of an execution the caller may see, newest first; a deleted
// execution's attempts stay readable. The order is the one task_executions_list_idx serves.
func (s *Service) ListTaskExecutionRecords(ctx context.Context, req platformapi.ListTaskExecutionRecordsRequestObject) (platformapi.ListTaskExecutionRecordsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	exec := req.Params.FlowExecutionId
	if _, err := visible(ctx, s.db, p, exec); err != nil {
		return nil, err
	}
	var status *string
	if req.Params.Status != nil {
		v := string(*req.Params.Status)
		status = &v
	}
	// Always one page: an execution may hold thousands of attempts, and an answer without a bound
	// would read them all for any caller who leaves the page out. A page is an offset into the index's
	// order.
	limit, offset := defaultLimit, 0
	if q := req.Params; q.Limit != nil {
		limit = *q.Limit
	}
	if q := req.Params; q.Page != nil {
		offset = (*q.Page - 1) * limit
	}
	var rows []row
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+columns+` FROM task_executions t
		WHERE t.flow_execution_id = $1 AND ($2::text IS NULL OR t.task_name = $2) AND ($3::text IS NULL OR t.status = $3)
		ORDER BY t.created_at DESC, t.task_execution_idx DESC, t.id DESC
		LIMIT $4 OFFSET $5`, exec, req.Params.TaskName, status, limit, offset); err != nil {
		return nil, err
	}
	out, err := withTags(ctx, s.db, exec, rows)
	if err != nil {
		return nil, err
	}
	return platformapi.ListTaskExecutionRecords200JSONResponse{TaskExecutions: out}, nil
}
