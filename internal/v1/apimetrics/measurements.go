package apimetrics

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// maxMeasurements bounds an ungrouped answer.
const maxMeasurements = 10000

// groupColumns are the grouping keys the contract names, as SQL over `measurements m`.
var groupColumns = map[string]string{
	"metric_name": "m.metric_name", "field_name": "m.field_name", "dataset_id": "m.dataset_id",
	"parameter_set_id": "m.parameter_set_id",
	"hour":             "date_trunc('hour', m.measured_at AT TIME ZONE 'UTC')",
	"day":              "date_trunc('day', m.measured_at AT TIME ZONE 'UTC')",
	"week":             "date_trunc('week', m.measured_at AT TIME ZONE 'UTC')",
}

type measurementRow struct {
	Metric      *string    `db:"metric_name"`
	Field       *string    `db:"field_name"`
	Dataset     *uuid.UUID `db:"dataset_id"`
	Parameters  *uuid.UUID `db:"parameter_set_id"`
	PeriodStart *time.Time `db:"period_start"`
	MeasuredAt  *time.Time `db:"measured_at"`
	Value       float64    `db:"value"`
	Sample      int64      `db:"sample_size"`
	Count       int64      `db:"measurement_count"`
}

// GetMeasurements answers the app's measurements matching the filters, one by one or grouped.
func (s *Service) GetMeasurements(ctx context.Context, req v1api.GetMeasurementsRequestObject) (v1api.GetMeasurementsResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	p := req.Params
	var metric *string
	if p.MetricName != nil {
		m := string(*p.MetricName)
		metric = &m
	}
	where := `m.app_id = $1 AND ($2::timestamptz IS NULL OR m.measured_at >= $2) AND ($3::timestamptz IS NULL OR m.measured_at < $3)
		AND ($4::uuid IS NULL OR m.parameter_set_id = $4) AND ($5::uuid IS NULL OR m.dataset_id = $5)
		AND ($6::text IS NULL OR m.field_name = $6) AND ($7::text IS NULL OR m.metric_name = $7)`
	args := []any{req.AppId, p.StartTime, p.EndTime, p.ParameterSetId, p.DatasetId, p.FieldName, metric}
	groups := []string{}
	if p.GroupBy != nil {
		for _, g := range *p.GroupBy {
			groups = append(groups, string(g))
		}
	}
	q, err := measurementQuery(groups, where)
	if err != nil {
		return nil, err
	}
	var rows []measurementRow
	if err := s.d.DB.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := v1api.GetMeasurements200JSONResponse{AppId: req.AppId, StartTime: p.StartTime, EndTime: p.EndTime, GroupBy: groups,
		Measurements: make([]v1api.Measurement, len(rows))}
	for i, r := range rows {
		out.Measurements[i] = v1api.Measurement{MetricName: r.Metric, FieldName: r.Field, DatasetId: r.Dataset,
			ParameterSetId: r.Parameters, PeriodStart: utc(r.PeriodStart), MeasuredAt: utc(r.MeasuredAt),
			Value: float32(r.Value), SampleSize: r.Sample, MeasurementCount: r.Count}
	}
	return out, nil
}

// measurementQuery selects every column the answer has: grouping keys set, the others null, so one
// scan fits both shapes.
func measurementQuery(groups []string, where string) (string, error) {
	if len(groups) == 0 {
		return `SELECT m.metric_name, m.field_name, m.dataset_id, m.parameter_set_id, NULL::timestamptz AS period_start,
			m.measured_at, m.value, m.sample_size, 1::bigint AS measurement_count
			FROM measurements m WHERE ` + where + ` ORDER BY m.measured_at DESC, m.id DESC LIMIT ` + strconv.Itoa(maxMeasurements), nil
	}
	sel := map[string]string{"metric_name": "NULL::text", "field_name": "NULL::text", "dataset_id": "NULL::uuid",
		"parameter_set_id": "NULL::uuid", "period_start": "NULL::timestamptz"}
	var by []string
	period := ""
	for _, g := range groups {
		col := groupColumns[g]
		switch g {
		case "hour", "day", "week":
			if period != "" && period != g {
				return "", httpx.InvalidV1([]any{"query", "group_by"}, "value_error",
					"group by one time unit at most: "+period+" and "+g+" were given")
			}
			period = g
			sel["period_start"] = col + " AT TIME ZONE 'UTC'"
		default:
			sel[g] = col
		}
		by = append(by, col)
	}
	return `SELECT ` + sel["metric_name"] + ` AS metric_name, ` + sel["field_name"] + ` AS field_name, ` +
		sel["dataset_id"] + ` AS dataset_id, ` + sel["parameter_set_id"] + ` AS parameter_set_id, ` +
		sel["period_start"] + ` AS period_start, NULL::timestamptz AS measured_at,
		avg(m.value) AS value, sum(m.sample_size)::bigint AS sample_size, count(*) AS measurement_count
		FROM measurements m WHERE ` + where + ` GROUP BY ` + strings.Join(by, ", ") + ` ORDER BY ` + strings.Join(by, ", "), nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
