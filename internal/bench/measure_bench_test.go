package bench_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
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

// BenchmarkMeasure times a MEASURE operation over a dataset of 10,000 baseline records
// (BENCH_MEASURE=n for another size): n jobs of an app whose flow is one transform task, submitted,
// run and scored on four metrics of one field.
func BenchmarkMeasure(b *testing.B) {
	n := 10_000
	if v := os.Getenv("BENCH_MEASURE"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	env := testkit.NewEnv(b)
	org := env.Org(b)
	admin := env.User(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, int64(2*n+100)); err != nil {
		b.Fatal(err)
	}
	flow, err := admin.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "classify", Definition: json.RawMessage(
		`{"version": 1, "tasks": [{"name": "c", "type": "transform", "parameters": {"expression":
		"{label: (if .n % 3 == 0 then \"a\" else \"b\" end), confidence: 0.8}"}}], "edges": []}`)})
	testkit.Expect(b, flow, err, http.StatusCreated)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'measure', $2) RETURNING id`, org, flow.JSON201.Id); err != nil {
		b.Fatal(err)
	}
	env.DB.MustExec(`INSERT INTO measurer_configurations (app_id, organization_id, enabled, metrics, fields) VALUES ($1, $2, true, $3, $4)`,
		app, org, pq.StringArray{"accuracy", "f1", "exact_match", "latency_seconds"}, pq.StringArray{"{label}"})
	env.DB.MustExec(`INSERT INTO baseline_data (organization_id, api_id, input, response)
		SELECT $1, $2, jsonb_build_object('n', i), jsonb_build_object('label', CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END)
		FROM generate_series(1, $3) i`, org, flow.JSON201.Id, n)
	began := time.Now()
	start, err := admin.V1.CreateMeasurerOperationWithResponse(ctx, app, nil, v1api.MeasurerOperationInput{Type: "MEASURE"})
	testkit.Expect(b, start, err, http.StatusCreated)
	for {
		var status string
		if err := env.DB.Get(&status, `SELECT status FROM measurer_operations WHERE id = $1`, start.JSON201.Id); err != nil {
			b.Fatal(err)
		}
		if status == "SUCCEEDED" {
			break
		}
		if status == "FAILED" || time.Since(began) > 20*time.Minute {
			b.Fatalf("the operation is %s", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(began)
	var acc float64
	env.DB.Get(&acc, `SELECT value FROM measurements WHERE app_id = $1 AND metric_name = 'accuracy'`, app)
	report(b, "MEASURE over a dataset of baseline records", "%d records: %.1f s (%.0f jobs/s submitted, run and scored; accuracy %.3f)",
		n, took.Seconds(), float64(n)/took.Seconds(), acc)
}
