package apimetrics_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestMeasurementsGrouped: filters, newest-first listing and grouping by keys and by day, checked
// against means and sums worked out by hand.
func TestMeasurementsGrouped(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	c := env.User(t, org, auth.RoleOrgAdmin)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'm') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	day1 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	day2 := day1.Add(24 * time.Hour)
	for _, m := range []struct {
		metric string
		value  float64
		sample int
		at     time.Time
	}{{"accuracy", 0.8, 10, day1.Add(10 * time.Hour)}, {"accuracy", 0.9, 20, day1.Add(14 * time.Hour)}, {"f1", 0.5, 5, day2.Add(time.Hour)}} {
		env.DB.MustExec(`INSERT INTO measurements (organization_id, app_id, metric_name, value, sample_size, measured_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, org, app, m.metric, m.value, m.sample, m.at)
	}
	get := func(p v1api.GetMeasurementsParams, want int) *v1api.MeasurementResponse {
		t.Helper()
		res, err := c.V1.GetMeasurementsWithResponse(ctx, app, &p)
		testkit.Expect(t, res, err, want)
		return res.JSON200
	}
	all := get(v1api.GetMeasurementsParams{}, 200).Measurements
	if len(all) != 3 || *all[0].MetricName != "f1" || all[0].MeasurementCount != 1 || all[0].MeasuredAt == nil {
		t.Fatalf("ungrouped %+v", all)
	}
	by := get(v1api.GetMeasurementsParams{GroupBy: new([]v1api.GetMeasurementsParamsGroupBy{"metric_name"})}, 200).Measurements
	if len(by) != 2 || *by[0].MetricName != "accuracy" || by[0].Value != float32(0.85) || by[0].SampleSize != 30 ||
		by[0].MeasurementCount != 2 || by[0].FieldName != nil || by[0].MeasuredAt != nil {
		t.Fatalf("by metric %+v", by)
	}
	daily := get(v1api.GetMeasurementsParams{GroupBy: new([]v1api.GetMeasurementsParamsGroupBy{"metric_name", "day"})}, 200).Measurements
	if len(daily) != 2 || !daily[0].PeriodStart.Equal(day1) || !daily[1].PeriodStart.Equal(day2) {
		t.Fatalf("by day %+v", daily)
	}
	window := get(v1api.GetMeasurementsParams{StartTime: new(day1.Add(12 * time.Hour)), EndTime: new(day2),
		MetricName: new(v1api.GetMeasurementsParamsMetricName("accuracy"))}, 200)
	if len(window.Measurements) != 1 || window.Measurements[0].Value != float32(0.9) || window.StartTime == nil {
		t.Fatalf("window %+v", window)
	}
	get(v1api.GetMeasurementsParams{GroupBy: new([]v1api.GetMeasurementsParamsGroupBy{"hour", "day"})}, http.StatusBadRequest)
	get(v1api.GetMeasurementsParams{GroupBy: new([]v1api.GetMeasurementsParamsGroupBy{"color"})}, http.StatusBadRequest)

	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	missing, err := stranger.V1.GetMeasurementsWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, _ := stranger.V1.GetMeasurementsWithResponse(ctx, app, nil)
	testkit.SameAsMissing(t, hidden, missing)
}
