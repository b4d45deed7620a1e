package apps_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func TestUpdateApp(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	flowA := appstest.Flow(t, env.DB, org, "A", flowDef)
	flowB := appstest.Flow(t, env.DB, org, "B", flowDef)
	foreignFlow := appstest.Flow(t, env.DB, other, "theirs", flowDef)
	ctx := context.Background()
	full := func(name string) v1api.App {
		return create(t, admin, nil, v1api.AppInput{Name: new(name), Description: nullable.NewNullableWithValue("d"),
			ApiId: nullable.NewNullableWithValue(flowA), JobTtlSeconds: nullable.NewNullableWithValue(120),
			Settings: &v1api.AppSettings{AutoCompleteScore: nullable.NewNullableWithValue(float32(0.5)), DefaultPriority: new(7)}})
	}
	update := func(id uuid.UUID, body v1api.AppInput, want int) *v1api.UpdateAppResponse {
		t.Helper()
		res, err := admin.V1.UpdateAppWithResponse(ctx, id, nil, body)
		appstest.Expect(t, res, err, want)
		return res
	}

	t.Run("fields left out keep their values", func(t *testing.T) {
		t.Parallel()
		a := full("keep")
		res := update(a.Id, v1api.AppInput{Status: new(v1api.AppStatus("ARCHIVED")), Settings: &v1api.AppSettings{ReviewRate: new(float32(0.5))}}, http.StatusOK)
		b := res.JSON200
		got := b.App
		if b.BatchId != nil || b.OperationId != nil || b.AppId != a.Id || got.Status != "ARCHIVED" || got.Name != "keep" ||
			*got.Description != "d" || *got.ApiId != flowA || *got.JobTtlSeconds != 120 || !got.UpdatedAt.After(a.UpdatedAt) {
			t.Errorf("got %+v", b)
		}
		if s := got.Settings; *s.ReviewRate != 0.5 || *s.DefaultPriority != 7 || s.AutoCompleteScore.MustGet() != 0.5 {
			t.Errorf("settings %+v", s)
		}
	})
	t.Run("null clears description, api_id, job_ttl_seconds and auto_complete_score", func(t *testing.T) {
		t.Parallel()
		a := full("clear")
		got := update(a.Id, v1api.AppInput{Description: nullable.NewNullNullable[string](), ApiId: nullable.NewNullNullable[uuid.UUID](),
			JobTtlSeconds: nullable.NewNullNullable[int](), Settings: &v1api.AppSettings{AutoCompleteScore: nullable.NewNullNullable[float32]()}},
			http.StatusOK).JSON200.App
		if got.Description != nil || got.ApiId != nil || got.ApiName != nil || got.JobTtlSeconds != nil ||
			!got.Settings.AutoCompleteScore.IsNull() || *got.Settings.DefaultPriority != 7 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("a new flow with rerun queues a RERUN_JOBS operation", func(t *testing.T) {
		t.Parallel()
		a := full("rerun")
		res := update(a.Id, v1api.AppInput{ApiId: nullable.NewNullableWithValue(flowB), RerunUnfinishedJobs: new(true)}, http.StatusAccepted)
		b := res.JSON202
		if b.BatchId == nil || b.OperationId == nil || *b.App.ApiId != flowB || *b.App.ApiName != "B" {
			t.Fatalf("got %+v", b)
		}
		var op struct {
			Type, Status, Batch string
			App                 uuid.UUID
		}
		// The operation is queued with the change and the background worker runs it to the end.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if err := env.DB.QueryRow(`SELECT type, status, batch_id, app_id FROM bulk_operations WHERE id = $1`, *b.OperationId).
				Scan(&op.Type, &op.Status, &op.Batch, &op.App); err != nil {
				t.Fatal(err)
			}
			if op.Status == "SUCCEEDED" || op.Status == "FAILED" || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if op.Type != "RERUN_JOBS" || op.Status != "SUCCEEDED" || op.Batch != *b.BatchId || op.App != a.Id {
			t.Errorf("operation %+v", op)
		}
		// The same flow again, or a new flow without rerun, completes at once.
		update(a.Id, v1api.AppInput{ApiId: nullable.NewNullableWithValue(flowB), RerunUnfinishedJobs: new(true)}, http.StatusOK)
		update(a.Id, v1api.AppInput{ApiId: nullable.NewNullableWithValue(flowA)}, http.StatusOK)
	})
	t.Run("refusals change nothing", func(t *testing.T) {
		t.Parallel()
		a := full("refused")
		create(t, admin, nil, v1api.AppInput{Name: new("Occupied")})
		update(a.Id, v1api.AppInput{Name: new(" ")}, http.StatusBadRequest)
		res := update(a.Id, v1api.AppInput{Name: new("occupied"), Status: new(v1api.AppStatus("PAUSED"))}, http.StatusBadRequest)
		if e := appstest.ErrorOf(t, res); e.Details[0].Loc[1] != "name" {
			t.Errorf("error %+v", e)
		}
		res = update(a.Id, v1api.AppInput{ApiId: nullable.NewNullableWithValue(foreignFlow), Status: new(v1api.AppStatus("PAUSED"))}, http.StatusBadRequest)
		if e := appstest.ErrorOf(t, res); e.Details[0].Loc[1] != "api_id" {
			t.Errorf("error %+v", e)
		}
		update(a.Id, v1api.AppInput{JobTtlSeconds: nullable.NewNullableWithValue(5)}, http.StatusBadRequest)
		got, err := admin.V1.GetAppWithResponse(ctx, a.Id, nil)
		appstest.Expect(t, got, err, http.StatusOK)
		if got.JSON200.Status != "ACTIVE" || got.JSON200.Name != "refused" || *got.JSON200.ApiId != flowA {
			t.Errorf("a refused update changed the app: %+v", got.JSON200)
		}
	})
}
