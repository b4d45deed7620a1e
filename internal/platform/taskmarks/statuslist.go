package taskmarks

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// ListTaskStatuses answers the current status per task (the newest record of each task, left out when
// it cleared the status), or with include_history every record oldest first. Task names sort by bytes
// (COLLATE "C"), so the order is the same on every database whatever its locale.
func (s *Service) ListTaskStatuses(ctx context.Context, req platformapi.ListTaskStatusesRequestObject) (platformapi.ListTaskStatusesResponseObject, error) {
	c := callerOf(ctx)
	heads, err := visibleExecutions(ctx, s.db, c, []uuid.UUID{req.Id}, false)
	if err != nil {
		return nil, err
	}
	if _, ok := heads[req.Id]; !ok {
		return nil, errExecutionNotFound
	}
	p := req.Params
	args := []any{c.org, req.Id}
	cond := `organization_id = $1 AND flow_execution_id = $2`
	if p.TaskName != nil {
		args = append(args, *p.TaskName)
		cond += ` AND task_name = $3`
	}
	var q string
	if p.IncludeHistory != nil && *p.IncludeHistory {
		q = `SELECT ` + statusColumns + ` FROM flow_task_statuses WHERE ` + cond + ` ORDER BY seq`
	} else {
		q = `SELECT * FROM (
			SELECT DISTINCT ON (task_name) ` + statusColumns + ` FROM flow_task_statuses WHERE ` + cond + `
			ORDER BY task_name, seq DESC) current
			WHERE status IS NOT NULL ORDER BY task_name COLLATE "C"`
	}
	var rows []statusRow
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make(platformapi.ListTaskStatuses200JSONResponse, len(rows))
	for i, r := range rows {
		out[i] = r.api()
	}
	return out, nil
}
