package billing

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// usageRow is one usage record with its product's name and unit as they are now.
type usageRow struct {
	ID              uuid.UUID  `db:"id"`
	CreatedAt       time.Time  `db:"created_at"`
	CreatedBy       string     `db:"created_by"`
	OrganizationID  uuid.UUID  `db:"organization_id"`
	FlowExecutionID *uuid.UUID `db:"flow_execution_id"`
	JobID           *int64     `db:"job_id"`
	ProductID       uuid.UUID  `db:"product_id"`
	ProductName     string     `db:"product_name"`
	Unit            string     `db:"unit"`
	Amount          int64      `db:"amount"`
	EstimatedCost   *float64   `db:"estimated_cost"`
	Metadata        []byte     `db:"metadata"`
}

// usageSelect reads usage records, those of flow executions and those of /v1 job submissions alike.
// Records are never changed after they are written, so updated_at and modified_by are their creation's.
const usageSelect = `
	SELECT u.id, u.created_at, u.created_by, u.organization_id, u.flow_execution_id, u.job_id, u.product_id,
	       p.name AS product_name, p.unit, u.amount, u.estimated_cost::float8 AS estimated_cost, u.metadata
	FROM usage_records u JOIN products p ON p.id = u.product_id
	WHERE u.organization_id = $1`

func (r usageRow) response() (platformapi.UsageRecordResponse, error) {
	meta, err := decodeObject(r.Metadata)
	return platformapi.UsageRecordResponse{Id: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.CreatedAt,
		ModifiedBy: r.CreatedBy, OrganizationId: r.OrganizationID, FlowExecutionId: r.FlowExecutionID, JobId: r.JobID,
		ProductId: r.ProductID, ProductName: r.ProductName, Unit: r.Unit, Amount: r.Amount,
		EstimatedCost: r.EstimatedCost, Metadata: meta}, err
}

func getUsage(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) (usageRow, error) {
	var r usageRow
	err := db.GetContext(ctx, &r, usageSelect+` AND u.id = $2`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return r, httpx.NotFound("usage record")
	}
	return r, err
}

// usageFilter is the filters the list and the summary share, as a condition on usage_records u.
type usageFilter struct {
	flowExecution, product *uuid.UUID
	from, to               *time.Time
}

// where returns the condition after the organization's ($1) and the arguments from $2 on. A period
// that ends before it starts is refused rather than answered with nothing.
func (f usageFilter) where(org uuid.UUID) (string, []any, error) {
	if f.from != nil && f.to != nil && f.from.After(*f.to) {
		return "", nil, httpx.Invalid([]any{"query", "from"}, "value_error", "from must not be later than to")
	}
	args := []any{org}
	var conds []string
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, strings.ReplaceAll(cond, "?", dbx.Placeholder(len(args))))
	}
	if f.flowExecution != nil {
		add("u.flow_execution_id = ?", *f.flowExecution)
	}
	if f.product != nil {
		add("u.product_id = ?", *f.product)
	}
	if f.from != nil {
		add("u.created_at >= ?", *f.from)
	}
	if f.to != nil {
		add("u.created_at < ?", *f.to)
	}
	if len(conds) == 0 {
		return "", args, nil
	}
	return " AND " + strings.Join(conds, " AND "), args, nil
}
