package taskmarks

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
)

// statusRow is one status record as stored.
type statusRow struct {
	ID        uuid.UUID `db:"id"`
	Org       uuid.UUID `db:"organization_id"`
	Execution uuid.UUID `db:"flow_execution_id"`
	TaskName  string    `db:"task_name"`
	Status    *string   `db:"status"`
	CreatedAt time.Time `db:"created_at"`
	Seq       int64     `db:"seq"`
}

func (r statusRow) api() platformapi.FlowTaskStatusAPI {
	created := r.CreatedAt
	return platformapi.FlowTaskStatusAPI{Id: r.ID, OrganizationId: r.Org, FlowExecutionId: r.Execution,
		TaskName: r.TaskName, Status: r.Status, CreatedAt: &created}
}

const statusColumns = `id, organization_id, flow_execution_id, task_name, status, created_at, seq`

// AddTaskStatuses appends one status record per item, in request order, in one statement: the
// identity column numbers the rows in the order unnest yields them (WITH ORDINALITY), and that number
// is what "newest" means, since the records of one transaction share created_at.
func (s *Service) AddTaskStatuses(ctx context.Context, req platformapi.AddTaskStatusesRequestObject) (platformapi.AddTaskStatusesResponseObject, error) {
	c := callerOf(ctx)
	items := req.Body.Statuses
	names := make([]string, len(items))
	statuses := make([]*string, len(items))
	for i, it := range items {
		names[i], statuses[i] = it.TaskName, it.Status
	}
	var rows []statusRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if _, err := writableExecution(ctx, tx, c, req.Id); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &rows, `
			INSERT INTO flow_task_statuses (organization_id, flow_execution_id, task_name, status, modified_by)
			SELECT $1, $2, t.name, t.status, $5
			FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t (name, status, n) ORDER BY t.n
			RETURNING `+statusColumns, c.org, req.Id, pq.Array(names), pq.Array(statuses), c.actor)
	})
	if err != nil {
		return nil, err
	}
	// RETURNING promises no order; the identity does.
	slices.SortFunc(rows, func(a, b statusRow) int { return cmp.Compare(a.Seq, b.Seq) })
	out := make(platformapi.AddTaskStatuses201JSONResponse, len(rows))
	for i, r := range rows {
		out[i] = r.api()
	}
	return out, nil
}
