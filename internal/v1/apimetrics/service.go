// Package apimetrics implements the /v1 metric routes: the desired metrics (targets) of an API, the
// latest values measured over its apps, and every latest value of an app, each compared with its
// target.
package apimetrics

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/baseline"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Grants *access.Grants
}

// Service implements the metric operations of v1api.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// SetDesiredApiMetrics replaces the API's targets; at most one per metric and field.
func (s *Service) SetDesiredApiMetrics(ctx context.Context, req v1api.SetDesiredApiMetricsRequestObject) (v1api.SetDesiredApiMetricsResponseObject, error) {
	p, err := baseline.RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Manager)
	if err != nil {
		return nil, err
	}
	metrics := normalize(req.Body.Metrics)
	seen := map[string]int{}
	for i, m := range metrics {
		loc := []any{"body", "metrics", i, "field_name"}
		if _, err := filter.ParsePath(*m.FieldName); err != nil {
			return nil, httpx.InvalidV1(loc, "value_error", err.Error())
		}
		key := string(m.MetricName) + " " + *m.FieldName
		if j, dup := seen[key]; dup {
			return nil, httpx.InvalidV1([]any{"body", "metrics", i}, "value_error",
				fmt.Sprintf("a second target for %s of %s (the first is item %d)", m.MetricName, *m.FieldName, j))
		}
		seen[key] = i
	}
	raw, err := json.Marshal(metrics)
	if err != nil {
		return nil, err
	}
	var at time.Time
	err = s.d.DB.GetContext(ctx, &at, `INSERT INTO api_desired_metrics (api_id, organization_id, metrics) VALUES ($1, $2, $3)
		ON CONFLICT (api_id) DO UPDATE SET metrics = EXCLUDED.metrics, updated_at = now() RETURNING updated_at`,
		req.ApiId, p.OrganizationID, string(raw))
	if err != nil {
		return nil, err
	}
	at = at.UTC()
	return v1api.SetDesiredApiMetrics200JSONResponse{Metrics: metrics, UpdatedAt: &at}, nil
}

// normalize fills the defaults (field {} and direction AT_LEAST), so what is stored is what is shown.
func normalize(in []v1api.DesiredMetric) []v1api.DesiredMetric {
	out := make([]v1api.DesiredMetric, len(in))
	for i, m := range in {
		if m.FieldName == nil {
			f := "{}"
			m.FieldName = &f
		}
		if m.Direction == nil {
			d := v1api.DesiredMetricDirection("AT_LEAST")
			m.Direction = &d
		}
		out[i] = m
	}
	return out
}

// desired reads an API's targets (none when never set).
func desired(ctx context.Context, db *sqlx.DB, api uuid.UUID) (v1api.DesiredAppMetrics, error) {
	var row struct {
		Metrics   []byte    `db:"metrics"`
		UpdatedAt time.Time `db:"updated_at"`
	}
	out := v1api.DesiredAppMetrics{Metrics: []v1api.DesiredMetric{}}
	err := db.GetContext(ctx, &row, `SELECT metrics, updated_at FROM api_desired_metrics WHERE api_id = $1`, api)
	if err != nil {
		if isNoRows(err) {
			return out, nil
		}
		return out, err
	}
	if err := json.Unmarshal(row.Metrics, &out.Metrics); err != nil {
		return out, err
	}
	at := row.UpdatedAt.UTC()
	out.UpdatedAt = &at
	return out, nil
}
