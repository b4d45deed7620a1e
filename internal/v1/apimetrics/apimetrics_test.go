package apimetrics_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// TestTargetsAndLatestValues: targets are stored with their defaults, one per metric and field; the
// latest measured values are shown with their targets, over the API and per app.
func TestTargetsAndLatestValues(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	var api, app uuid.UUID
	if err := env.DB.Get(&api, `INSERT INTO flows (organization_id) VALUES ($1) RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'm', $2) RETURNING id`, org, api); err != nil {
		t.Fatal(err)
	}
	labeler := env.User(t, org, auth.RoleAppUser)
	env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'LABELER')`, app, labeler.UserID, org)

	empty, err := labeler.V1.GetApiMetricsWithResponse(ctx, api, nil)
	testkit.Expect(t, empty, err, http.StatusOK)
	if len(empty.JSON200.Latest) != 0 || empty.JSON200.MeasuredAt != nil || len(empty.JSON200.Desired.Metrics) != 0 {
		t.Fatalf("never measured: %s", empty.Body)
	}
	set, err := admin.V1.SetDesiredApiMetricsWithResponse(ctx, api, nil, v1api.DesiredAppMetrics{Metrics: []v1api.DesiredMetric{
		{MetricName: "accuracy", Target: 0.9},
		{MetricName: "latency_seconds", FieldName: new("{}"), Target: 30, Direction: new(v1api.DesiredMetricDirection("AT_MOST"))},
		{MetricName: "accuracy", FieldName: new("{total}"), Target: 0.95},
	}})
	testkit.Expect(t, set, err, http.StatusOK)
	if m := set.JSON200.Metrics[0]; *m.FieldName != "{}" || *m.Direction != "AT_LEAST" || set.JSON200.UpdatedAt == nil {
		t.Fatalf("defaults not filled: %s", set.Body)
	}
	for name, body := range map[string]v1api.DesiredAppMetrics{
		"metrics.1":            {Metrics: []v1api.DesiredMetric{{MetricName: "f1", Target: 1}, {MetricName: "f1", FieldName: new("{}"), Target: 2}}},
		"metrics.0.field_name": {Metrics: []v1api.DesiredMetric{{MetricName: "f1", FieldName: new("{a..b}"), Target: 1}}},
		"metric_name":          {Metrics: []v1api.DesiredMetric{{MetricName: "happiness", Target: 1}}},
	} {
		res, err := admin.V1.SetDesiredApiMetricsWithResponse(ctx, api, nil, body)
		testkit.Expect(t, res, err, http.StatusBadRequest)
		if !strings.Contains(strings.ReplaceAll(string(res.Body), `",`, "."), strings.Split(name, ".")[0]) {
			t.Errorf("%s: %s", name, res.Body)
		}
	}
	denied, err := labeler.V1.SetDesiredApiMetricsWithResponse(ctx, api, nil, v1api.DesiredAppMetrics{Metrics: []v1api.DesiredMetric{}})
	testkit.Expect(t, denied, err, http.StatusForbidden)

	// Values as the measurer records them: an older and a newer accuracy, a latency over its target.
	old, recent := time.Now().Add(-time.Hour), time.Now().Add(-time.Minute)
	for _, m := range []struct {
		metric, field string
		value         float64
		at            time.Time
	}{{"accuracy", "{}", 0.8, old}, {"accuracy", "{}", 0.92, recent}, {"latency_seconds", "{}", 45, recent}} {
		env.DB.MustExec(`INSERT INTO measurements (organization_id, app_id, api_id, metric_name, field_name, value, sample_size, measured_at)
			VALUES ($1, $2, $3, $4, $5, $6, 50, $7)`, org, app, api, m.metric, m.field, m.value, m.at)
	}
	got, err := labeler.V1.GetApiMetricsWithResponse(ctx, api, nil)
	testkit.Expect(t, got, err, http.StatusOK)
	l := got.JSON200.Latest
	if len(l) != 2 || l[0].MetricName != "accuracy" || l[0].Value != float32(0.92) || !*l[0].MeetsTarget || *l[0].Target != 0.9 ||
		l[1].MetricName != "latency_seconds" || *l[1].MeetsTarget || got.JSON200.MeasuredAt == nil {
		t.Fatalf("latest: %s", got.Body)
	}
	all, err := labeler.V1.ListAllMetricsWithResponse(ctx, app, nil)
	testkit.Expect(t, all, err, http.StatusOK)
	if len(*all.JSON200) != 2 || (*all.JSON200)[0].SampleSize != 50 {
		t.Fatalf("all metrics: %s", all.Body)
	}

	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	missing, err := stranger.V1.GetApiMetricsWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, _ := stranger.V1.GetApiMetricsWithResponse(ctx, api, nil)
	testkit.SameAsMissing(t, hidden, missing)
	appMissing, err := stranger.V1.ListAllMetricsWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, appMissing, err, http.StatusNotFound)
	appHidden, _ := stranger.V1.ListAllMetricsWithResponse(ctx, app, nil)
	testkit.SameAsMissing(t, appHidden, appMissing)
}
