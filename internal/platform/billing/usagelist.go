package billing

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// usageScope resolves the organization a usage report is about and the condition of its filters.
func (s *Service) usageScope(ctx context.Context, requested *uuid.UUID, f usageFilter) (uuid.UUID, string, []any, error) {
	org, err := reportedOrganization(ctx, s.db, auth.MustFromContext(ctx), requested)
	if err != nil {
		return uuid.Nil, "", nil, err
	}
	cond, args, err := f.where(org)
	return org, cond, args, err
}

// ListUsageRecords pages through an organization's usage records, newest first; backoffice may name
// another organization.
func (s *Service) ListUsageRecords(ctx context.Context, req platformapi.ListUsageRecordsRequestObject) (platformapi.ListUsageRecordsResponseObject, error) {
	q := req.Params
	_, cond, args, err := s.usageScope(ctx, q.OrganizationId,
		usageFilter{flowExecution: q.FlowExecutionId, product: q.ProductId, from: q.From, to: q.To})
	if err != nil {
		return nil, err
	}
	page := httpx.NewPaging(q.Page, q.Limit)
	out := platformapi.ListUsageRecords200JSONResponse{Page: page.Page, Limit: page.Limit,
		UsageRecords: []platformapi.UsageRecordResponse{}}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*) FROM usage_records u
		WHERE u.organization_id = $1`+cond, args...); err != nil {
		return nil, err
	}
	var rows []usageRow
	args = append(args, page.Limit, page.Offset())
	sql := usageSelect + cond + ` ORDER BY u.created_at DESC, u.id DESC LIMIT ` + dbx.Placeholder(len(args)-1) +
		` OFFSET ` + dbx.Placeholder(len(args))
	if err := s.db.SelectContext(ctx, &rows, sql, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		item, err := r.response()
		if err != nil {
			return nil, err
		}
		out.UsageRecords = append(out.UsageRecords, item)
	}
	return out, nil
}

// summaryRow is the totals of one product.
type summaryRow struct {
	ProductID   uuid.UUID `db:"product_id"`
	ProductName string    `db:"product_name"`
	Unit        string    `db:"unit"`
	Provider    string    `db:"provider"`
	Amount      int64     `db:"total_amount"`
	Cost        float64   `db:"total_estimated_cost"`
	Count       int64     `db:"record_count"`
}

// GetUsageSummary sums an organization's usage per product over a period. Unlike the list it counts
// every record, those of /v1 jobs without a flow execution included, so that its total_amount is the
// credits the period consumed.
func (s *Service) GetUsageSummary(ctx context.Context, req platformapi.GetUsageSummaryRequestObject) (platformapi.GetUsageSummaryResponseObject, error) {
	q := req.Params
	org, cond, args, err := s.usageScope(ctx, q.OrganizationId,
		usageFilter{flowExecution: q.FlowExecutionId, product: q.ProductId, from: q.From, to: q.To})
	if err != nil {
		return nil, err
	}
	var rows []summaryRow
	err = s.db.SelectContext(ctx, &rows, `
		SELECT p.id AS product_id, p.name AS product_name, p.unit, p.provider,
		       sum(u.amount)::bigint AS total_amount,
		       coalesce(sum(u.estimated_cost), 0)::float8 AS total_estimated_cost,
		       count(*) AS record_count
		FROM usage_records u JOIN products p ON p.id = u.product_id
		WHERE u.organization_id = $1`+cond+`
		GROUP BY p.id ORDER BY p.name, p.id`, args...)
	if err != nil {
		return nil, dbx.Translate(err)
	}
	out := platformapi.GetUsageSummary200JSONResponse{OrganizationId: org, From: q.From, To: q.To,
		Items: make([]platformapi.UsageSummaryItem, 0, len(rows))}
	for _, r := range rows {
		out.Items = append(out.Items, platformapi.UsageSummaryItem{ProductId: r.ProductID, ProductName: r.ProductName,
			Unit: r.Unit, Provider: r.Provider, TotalAmount: r.Amount, TotalEstimatedCost: r.Cost, RecordCount: r.Count})
		out.TotalAmount += r.Amount
		out.TotalEstimatedCost += r.Cost
		out.RecordCount += r.Count
	}
	return out, nil
}
