package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

func TestLivenessAndReadiness(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	ctx := context.Background()

	live, err := env.API.GetLivenessWithResponse(ctx)
	if err != nil || live.StatusCode() != 200 || live.JSON200.Status != platformapi.LivenessResponseStatusAlive {
		t.Fatalf("liveness: %v %v", err, string(live.Body))
	}
	ready, err := env.API.GetReadinessWithResponse(ctx)
	if err != nil || ready.StatusCode() != 200 {
		t.Fatalf("readiness: %v %s", err, ready.Body)
	}
	r := ready.JSON200
	if r.Status != platformapi.ReadinessResponseStatusReady || !r.Healthy || r.Checks == nil {
		t.Fatalf("readiness body: %+v", r)
	}
	names := map[string]bool{}
	for _, c := range *r.Checks {
		names[c.Name] = c.Healthy
		if c.DurationMs < 0 {
			t.Fatalf("check %s has a negative duration", c.Name)
		}
	}
	if !names["database"] || !names["migrations"] {
		t.Fatalf("readiness must check the database and the migrations: %+v", *r.Checks)
	}

	detailed, err := env.API.GetDetailedHealthWithResponse(ctx)
	if err != nil || detailed.StatusCode() != 200 {
		t.Fatalf("detailed: %v %s", err, detailed.Body)
	}
	if d := detailed.JSON200; d.Status != platformapi.DetailedHealthResponseStatusHealthy || d.Database.MaxOpenConnections < 1 {
		t.Fatalf("detailed body: %+v", d)
	}
}

// TestReadinessWhenDatabaseIsGone drops the server's database under it: readiness must say not_ready
// with a 503 (and no driver detail), while liveness stays alive.
func TestReadinessWhenDatabaseIsGone(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	testkit.DropDB(t, env.DB)
	ctx := context.Background()

	ready, err := env.API.GetReadinessWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ready.StatusCode() != http.StatusServiceUnavailable || ready.JSON503 == nil {
		t.Fatalf("readiness with the database gone: %d %s", ready.StatusCode(), ready.Body)
	}
	r := ready.JSON503
	if r.Status != platformapi.ReadinessResponseStatusNotReady || r.Healthy {
		t.Fatalf("readiness body: %+v", r)
	}
	for _, c := range *r.Checks {
		if c.Name == "database" && c.Healthy {
			t.Fatal("database check reported healthy with the database gone")
		}
	}
	live, err := env.API.GetLivenessWithResponse(ctx)
	if err != nil || live.StatusCode() != 200 {
		t.Fatalf("liveness must not depend on the database: %v %d", err, live.StatusCode())
	}
	detailed, err := env.API.GetDetailedHealthWithResponse(ctx)
	if err != nil || detailed.StatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("detailed with the database gone: %v %d", err, detailed.StatusCode())
	}
}

// TestReadinessWithPendingMigrations runs the server on an empty database: it must not take traffic.
func TestReadinessWithPendingMigrations(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithDB(testkit.EmptyDB(t)), testkit.WithoutWorkers())
	ready, err := env.API.GetReadinessWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ready.StatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("readiness with pending migrations: %d %s", ready.StatusCode(), ready.Body)
	}
	for _, c := range *ready.JSON503.Checks {
		if c.Name == "migrations" && c.Healthy {
			t.Fatal("migrations check reported healthy on an empty database")
		}
	}
}

func TestDrainingTurnsReadinessOff(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	env.Server.SetDraining()
	ready, err := env.API.GetReadinessWithResponse(context.Background())
	if err != nil || ready.StatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("readiness while draining: %v %d", err, ready.StatusCode())
	}
}
