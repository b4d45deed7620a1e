package apimetrics

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/baseline"
)

type measured struct {
	App        uuid.UUID  `db:"app_id"`
	Metric     string     `db:"metric_name"`
	Field      string     `db:"field_name"`
	Dataset    *uuid.UUID `db:"dataset_id"`
	Parameters *uuid.UUID `db:"parameter_set_id"`
	Value      float64    `db:"value"`
	Sample     int64      `db:"sample_size"`
	At         time.Time  `db:"measured_at"`
}

// GetApiMetrics answers the targets and, per metric and field, the most recent value measured over the
// API's apps.
func (s *Service) GetApiMetrics(ctx context.Context, req v1api.GetApiMetricsRequestObject) (v1api.GetApiMetricsResponseObject, error) {
	if _, err := baseline.RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Labeler); err != nil {
		return nil, err
	}
	want, err := desired(ctx, s.d.DB, req.ApiId)
	if err != nil {
		return nil, err
	}
	var rows []measured
	err = s.d.DB.SelectContext(ctx, &rows, `SELECT DISTINCT ON (metric_name, field_name) app_id, metric_name, field_name,
			dataset_id, parameter_set_id, value, sample_size, measured_at
		FROM measurements WHERE api_id = $1 ORDER BY metric_name, field_name, measured_at DESC, id DESC`, req.ApiId)
	if err != nil {
		return nil, err
	}
	out := v1api.GetApiMetrics200JSONResponse{ApiId: req.ApiId, Desired: want, Latest: withTargets(rows, want.Metrics)}
	for _, r := range rows {
		if out.MeasuredAt == nil || r.At.After(*out.MeasuredAt) {
			at := r.At.UTC()
			out.MeasuredAt = &at
		}
	}
	return out, nil
}

// ListAllMetrics answers the latest value of every metric, field, dataset and parameter set of the app.
func (s *Service) ListAllMetrics(ctx context.Context, req v1api.ListAllMetricsRequestObject) (v1api.ListAllMetricsResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	var rows []measured
	err = s.d.DB.SelectContext(ctx, &rows, `SELECT DISTINCT ON (metric_name, field_name, dataset_id, parameter_set_id)
			app_id, metric_name, field_name, dataset_id, parameter_set_id, value, sample_size, measured_at
		FROM measurements WHERE app_id = $1
		ORDER BY metric_name, field_name, dataset_id, parameter_set_id, measured_at DESC, id DESC`, req.AppId)
	if err != nil {
		return nil, err
	}
	var targets []v1api.DesiredMetric
	if g.APIID != nil {
		want, err := desired(ctx, s.d.DB, *g.APIID)
		if err != nil {
			return nil, err
		}
		targets = want.Metrics
	}
	return v1api.ListAllMetrics200JSONResponse(withTargets(rows, targets)), nil
}

// withTargets shows each value with its target and whether it meets it in the target's direction.
func withTargets(rows []measured, targets []v1api.DesiredMetric) []v1api.MeasurerMetric {
	out := make([]v1api.MeasurerMetric, len(rows))
	for i, r := range rows {
		app := r.App
		m := v1api.MeasurerMetric{MetricName: v1api.MetricName(r.Metric), FieldName: r.Field, Value: float32(r.Value),
			SampleSize: r.Sample, AppId: &app, DatasetId: r.Dataset, ParameterSetId: r.Parameters, MeasuredAt: r.At.UTC()}
		for _, t := range targets {
			if string(t.MetricName) == r.Metric && *t.FieldName == r.Field {
				target := t.Target
				meets := r.Value >= float64(target)
				if t.Direction != nil && *t.Direction == "AT_MOST" {
					meets = r.Value <= float64(target)
				}
				m.Target, m.MeetsTarget = &target, &meets
			}
		}
		out[i] = m
	}
	return out
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
