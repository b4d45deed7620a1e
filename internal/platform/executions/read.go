package executions

import (
	"context"
	"strconv"
	"strings"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// GetFlowExecution reads one execution, deleted ones included.
func (s *Service) GetFlowExecution(ctx context.Context, req platformapi.GetFlowExecutionRequestObject) (platformapi.GetFlowExecutionResponseObject, error) {
	r, err := visible(ctx, s.db, auth.MustFromContext(ctx), req.Id)
	if err != nil {
		return nil, err
	}
	out, err := r.response(req.Params.IncludeRunNumber != nil && *req.Params.IncludeRunNumber)
	if err != nil {
		return nil, err
	}
	return platformapi.GetFlowExecution200JSONResponse(out), nil
}

// ListFlowExecutions pages through the executions of the flows the caller may see, newest first.
func (s *Service) ListFlowExecutions(ctx context.Context, req platformapi.ListFlowExecutionsRequestObject) (platformapi.ListFlowExecutionsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	q := req.Params
	if q.FlowVersion != nil && q.FlowId == nil {
		return nil, httpx.BadRequest("invalid_parameters", "flow_version is only accepted together with flow_id")
	}
	pg := httpx.NewPaging(q.Page, q.Limit)
	args := []any{p.OrganizationID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	conds := []string{`x.organization_id = $1`, `x.deleted_at IS NULL`}
	if !flows.Admin(p) {
		conds = append(conds, flows.SeenBy(p, arg(p.UserID)))
	}
	if q.FlowId != nil {
		conds = append(conds, `x.flow_id = `+arg(*q.FlowId))
	}
	if q.FlowVersion != nil {
		conds = append(conds, `x.flow_version = `+arg(*q.FlowVersion))
	}
	if q.Status != nil {
		conds = append(conds, `x.status = `+arg(string(*q.Status)))
	}
	if q.CreatedAfter != nil {
		conds = append(conds, `x.created_at >= `+arg(*q.CreatedAfter))
	}
	if q.CreatedBefore != nil {
		conds = append(conds, `x.created_at < `+arg(*q.CreatedBefore))
	}
	from := ` FROM flow_executions x JOIN flows f ON f.id = x.flow_id WHERE ` + strings.Join(conds, " AND ")
	out := platformapi.ListFlowExecutions200JSONResponse{FlowExecutions: []platformapi.FlowExecutionResponseWithRunNumber{},
		Page: pg.Page, Limit: pg.Limit}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*)`+from, args...); err != nil {
		return nil, err
	}
	var rows []row
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+columns+from+` ORDER BY x.created_at DESC, x.id DESC
		LIMIT `+arg(pg.Limit)+` OFFSET `+arg(pg.Offset()), args...); err != nil {
		return nil, err
	}
	withRun := q.IncludeRunNumber != nil && *q.IncludeRunNumber
	for _, r := range rows {
		e, err := r.response(withRun)
		if err != nil {
			return nil, err
		}
		out.FlowExecutions = append(out.FlowExecutions, e)
	}
	return out, nil
}
