package measurerops_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// classifier answers "cat" for texts that mention a cat (confidence 0.95) and "dog" for the rest (0.6).
const classifier = `{"version": 1, "tasks": [{"name": "classify", "type": "transform", "parameters": {"expression":
	"if (.text | test(\"cat\")) then {label: \"cat\", confidence: 0.95} else {label: \"dog\", confidence: 0.6} end"}}], "edges": []}`

// TestMeasureAndCalibrate: MEASURE runs the app's flow over the baseline records as jobs and records
// the configured metrics (worked by hand: 3 of 4 labels right); CALIBRATE derives the threshold; the
// confidences list the measured jobs.
func TestMeasureAndCalibrate(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, 1000); err != nil {
		t.Fatal(err)
	}
	flow, err := admin.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "classify", Definition: json.RawMessage(classifier)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	api := flow.JSON201.Id
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'pets', $2) RETURNING id`, org, api); err != nil {
		t.Fatal(err)
	}
	env.DB.MustExec(`INSERT INTO measurer_configurations (app_id, organization_id, enabled, metrics, fields) VALUES ($1, $2, true, $3, $4)`,
		app, org, pq.StringArray{"accuracy", "exact_match", "latency_seconds"}, pq.StringArray{"{label}"})
	for text, label := range map[string]string{"a cat": "cat", "cat nap": "cat", "a dog": "dog", "a bird": "bird"} {
		res, err := admin.V1.CreateBaselineDataWithResponse(ctx, api, nil, v1api.BaselineDataInput{
			Input: map[string]any{"text": text}, Response: map[string]any{"label": label}})
		testkit.Expect(t, res, err, http.StatusOK)
	}

	start, err := admin.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, v1api.MeasurerOperationInput{Type: "MEASURE"})
	testkit.Expect(t, start, err, http.StatusCreated)
	op := start.JSON201
	if op.DatasetId == nil || op.ParameterSetId == nil || op.Status != "QUEUED" {
		t.Fatalf("operation %+v", op)
	}
	// A second operation while one runs is a conflict with the running one, not a bad request.
	second, err := admin.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, v1api.MeasurerOperationInput{Type: "MEASURE"})
	testkit.Expect(t, second, err, http.StatusConflict)
	if second.JSON409 == nil || *second.JSON409.Error.Code != "conflict" {
		t.Fatalf("second operation: %s", second.Body)
	}
	wait(t, admin, app, op.Id)

	ms, err := admin.V1.GetMeasurementsWithResponse(ctx, app, &v1api.GetMeasurementsParams{DatasetId: op.DatasetId})
	testkit.Expect(t, ms, err, http.StatusOK)
	got := map[string]v1api.Measurement{}
	for _, m := range ms.JSON200.Measurements {
		got[*m.MetricName] = m
	}
	// The label's metrics are of the configured field; latency is of whole jobs, recorded under {} once.
	if got["accuracy"].Value != 0.75 || got["accuracy"].SampleSize != 4 || got["exact_match"].Value != 0.75 ||
		*got["accuracy"].FieldName != "{label}" || got["latency_seconds"].SampleSize != 4 ||
		*got["latency_seconds"].FieldName != "{}" || len(ms.JSON200.Measurements) != 3 {
		t.Fatalf("measurements %s", ms.Body)
	}
	// A latency target on the default field is compared with the measured latency.
	targets, err := admin.V1.SetDesiredApiMetricsWithResponse(ctx, api, nil, v1api.DesiredAppMetrics{Metrics: []v1api.DesiredMetric{
		{MetricName: "latency_seconds", Target: 3600, Direction: new(v1api.DesiredMetricDirection("AT_MOST"))}}})
	testkit.Expect(t, targets, err, http.StatusOK)
	all, err := admin.V1.ListAllMetricsWithResponse(ctx, app, nil)
	testkit.Expect(t, all, err, http.StatusOK)
	evaluated := false
	for _, m := range *all.JSON200 {
		if m.MetricName == "latency_seconds" {
			evaluated = m.MeetsTarget != nil && *m.MeetsTarget && m.Target != nil && *m.Target == 3600
		}
	}
	if !evaluated {
		t.Fatalf("the latency target on {} was not evaluated: %s", all.Body)
	}
	var measuredJobs int
	if err := env.DB.Get(&measuredJobs, `SELECT count(*) FROM jobs WHERE app_id = $1 AND is_measurement`, app); err != nil || measuredJobs != 4 {
		t.Fatalf("%d measurement jobs (%v)", measuredJobs, err)
	}

	cal, err := admin.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, v1api.MeasurerOperationInput{Type: "CALIBRATE"})
	testkit.Expect(t, cal, err, http.StatusCreated)
	if *cal.JSON201.DatasetId != *op.DatasetId {
		t.Fatalf("calibrated dataset %v, want the measured %v", cal.JSON201.DatasetId, op.DatasetId)
	}
	wait(t, admin, app, cal.JSON201.Id)
	conf, err := admin.V1.GetMeasurerConfidencesWithResponse(ctx, app, &v1api.GetMeasurerConfidencesParams{DatasetId: *op.DatasetId, MaxEntries: new(3)})
	testkit.Expect(t, conf, err, http.StatusOK)
	f := conf.JSON200.Fields[0]
	// By hand: from the most confident down, the two cats (0.95) are right: 2/2; adding the two at 0.6
	// (dog right, bird wrong) gives 3/4 < 0.9; the threshold is 0.95. Mean confidence (2·0.95 + 2·0.6)/4.
	if f.FieldName != "{label}" || len(f.Entries) != 3 || f.Threshold == nil || *f.Threshold != 0.95 ||
		math.Abs(float64(*f.MeanConfidence)-0.775) > 1e-6 {
		t.Fatalf("confidences %s", conf.Body)
	}

	list, err := admin.V1.ListMeasurerOperationsWithResponse(ctx, app, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if len(*list.JSON200) != 2 || (*list.JSON200)[0].Type != "CALIBRATE" || (*list.JSON200)[1].Progress != 1 {
		t.Fatalf("operations %s", list.Body)
	}
	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	missing, err := stranger.V1.ListMeasurerOperationsWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, _ := stranger.V1.ListMeasurerOperationsWithResponse(ctx, app, nil)
	testkit.SameAsMissing(t, hidden, missing)
	unknown, err := admin.V1.GetMeasurerConfidencesWithResponse(ctx, app, &v1api.GetMeasurerConfidencesParams{DatasetId: uuid.New()})
	testkit.Expect(t, unknown, err, http.StatusNotFound)
}

// TestOperationRefusals: no metrics selected, no baseline data, an unknown dataset or parameter set.
func TestOperationRefusals(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	flow, err := admin.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "c", Definition: json.RawMessage(classifier)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'x', $2) RETURNING id`, org, flow.JSON201.Id); err != nil {
		t.Fatal(err)
	}
	try := func(in v1api.MeasurerOperationInput, want int) {
		t.Helper()
		res, err := admin.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, in)
		testkit.Expect(t, res, err, want)
	}
	try(v1api.MeasurerOperationInput{Type: "MEASURE"}, http.StatusBadRequest) // no metrics
	env.DB.MustExec(`INSERT INTO measurer_configurations (app_id, organization_id, metrics) VALUES ($1, $2, '{accuracy}')`, app, org)
	try(v1api.MeasurerOperationInput{Type: "MEASURE"}, http.StatusBadRequest)   // no baseline data
	try(v1api.MeasurerOperationInput{Type: "CALIBRATE"}, http.StatusBadRequest) // nothing measured
	try(v1api.MeasurerOperationInput{Type: "MEASURE", DatasetId: new(uuid.New())}, http.StatusNotFound)
	try(v1api.MeasurerOperationInput{Type: "MEASURE", ParameterSetId: new(uuid.New())}, http.StatusNotFound)
	var state string
	if err := env.DB.Get(&state, `SELECT state FROM measurer_configurations WHERE app_id = $1`, app); err != nil || state == "CALCULATING" {
		t.Fatalf("a refused operation left the state %s (%v)", state, err)
	}
	labeler := env.User(t, org, auth.RoleAppUser)
	env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'LABELER')`, app, labeler.UserID, org)
	denied, err := labeler.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, v1api.MeasurerOperationInput{Type: "MEASURE"})
	testkit.Expect(t, denied, err, http.StatusForbidden)
}

func wait(t *testing.T, c *testkit.Caller, app, id uuid.UUID) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := c.V1.ListMeasurerOperationsWithResponse(ctx, app, nil)
		testkit.Expect(t, list, err, http.StatusOK)
		for _, o := range *list.JSON200 {
			if o.Id == id && (o.Status == "SUCCEEDED" || o.Status == "FAILED") {
				if o.Status == "FAILED" {
					t.Fatalf("operation failed: %v", *o.Error)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation not finished after 30 s: %s", list.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
