// Package health answers the probes and the root information route of the /api contract.
package health

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/buildinfo"
)

// MigrationState reports whether migrations the binary expects are still pending.
type MigrationState func(ctx context.Context) (pending bool, err error)

// Service implements the probes. It is safe for concurrent use.
type Service struct {
	db         *sqlx.DB
	migrations MigrationState
	timeout    time.Duration
	apiVersion string
	draining   atomic.Bool
	now        func() time.Time
}

// New returns the probes over db; timeout bounds each check.
func New(db *sqlx.DB, migrations MigrationState, timeout time.Duration, apiVersion string) *Service {
	return &Service{db: db, migrations: migrations, timeout: timeout, apiVersion: apiVersion, now: time.Now}
}

// SetDraining makes readiness fail from now on: during a graceful shutdown the load balancer stops
// sending new requests while the ones in flight finish.
func (s *Service) SetDraining() { s.draining.Store(true) }

// GetLiveness answers as long as the process serves requests; it checks no dependency on purpose, so a
// database outage does not get healthy processes restarted.
func (s *Service) GetLiveness(context.Context, platformapi.GetLivenessRequestObject) (platformapi.GetLivenessResponseObject, error) {
	return platformapi.GetLiveness200JSONResponse{
		Status:    platformapi.LivenessResponseStatusAlive,
		Timestamp: s.now().Unix(),
		Message:   "loopwork is alive",
	}, nil
}

// GetReadiness runs the checks that decide whether this replica should take traffic.
func (s *Service) GetReadiness(ctx context.Context, _ platformapi.GetReadinessRequestObject) (platformapi.GetReadinessResponseObject, error) {
	start := time.Now()
	checks := s.runChecks(ctx)
	healthy := allHealthy(checks)
	res := platformapi.ReadinessResponse{
		Status:     platformapi.ReadinessResponseStatusReady,
		Message:    "ready to take traffic",
		Healthy:    healthy,
		Timestamp:  s.now().Unix(),
		DurationMs: ms(time.Since(start)),
		Checks:     &checks,
	}
	if !healthy {
		res.Status = platformapi.ReadinessResponseStatusNotReady
		res.Message = "not ready: " + firstFailure(checks)
		return platformapi.GetReadiness503JSONResponse(res), nil
	}
	return platformapi.GetReadiness200JSONResponse(res), nil
}

// GetDetailedHealth adds pool and queue statistics to the checks.
func (s *Service) GetDetailedHealth(ctx context.Context, _ platformapi.GetDetailedHealthRequestObject) (platformapi.GetDetailedHealthResponseObject, error) {
	start := time.Now()
	checks := s.runChecks(ctx)
	queue, queueCheck := s.queueStats(ctx)
	checks = append(checks, queueCheck)
	st := s.db.Stats()
	res := platformapi.DetailedHealthResponse{
		Status:        platformapi.DetailedHealthResponseStatusHealthy,
		Version:       buildinfo.Version,
		UptimeSeconds: int64(s.now().Sub(buildinfo.Started).Seconds()),
		Timestamp:     s.now().Unix(),
		Checks:        checks,
		Database: platformapi.DatabasePoolStats{
			MaxOpenConnections: st.MaxOpenConnections,
			OpenConnections:    st.OpenConnections,
			InUse:              st.InUse,
			Idle:               st.Idle,
			WaitCount:          st.WaitCount,
			WaitDurationMs:     ms(st.WaitDuration),
			MaxIdleClosed:      &st.MaxIdleClosed,
			MaxLifetimeClosed:  &st.MaxLifetimeClosed,
		},
		Queue: queue,
	}
	res.DurationMs = ms(time.Since(start))
	switch {
	case !checks[0].Healthy: // without the database nothing works
		res.Status = platformapi.DetailedHealthResponseStatusUnhealthy
		return platformapi.GetDetailedHealth503JSONResponse(res), nil
	case !allHealthy(checks):
		res.Status = platformapi.DetailedHealthResponseStatusDegraded
	}
	return platformapi.GetDetailedHealth200JSONResponse(res), nil
}

// runChecks returns the database check first, then the others.
func (s *Service) runChecks(ctx context.Context) []platformapi.HealthCheckDetail {
	checks := []platformapi.HealthCheckDetail{
		s.check(ctx, "database", func(ctx context.Context) (string, error) {
			var one int
			if err := s.db.GetContext(ctx, &one, `SELECT 1`); err != nil {
				return "", err
			}
			return "PostgreSQL answers", nil
		}),
		s.check(ctx, "migrations", func(ctx context.Context) (string, error) {
			pending, err := s.migrations(ctx)
			if err != nil {
				return "", err
			}
			if pending {
				return "", errPending
			}
			return "schema is up to date", nil
		}),
	}
	if s.draining.Load() {
		checks = append(checks, platformapi.HealthCheckDetail{Name: "shutdown", Healthy: false, Details: "the replica is shutting down"})
	}
	return checks
}

func (s *Service) check(ctx context.Context, name string, fn func(context.Context) (string, error)) platformapi.HealthCheckDetail {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	details, err := fn(ctx)
	d := platformapi.HealthCheckDetail{Name: name, Healthy: err == nil, Details: details, DurationMs: ms(time.Since(start))}
	if err != nil {
		d.Details = publicReason(ctx, err)
	}
	return d
}

// queueStats counts River's jobs by state. It is a detail, not a readiness condition.
func (s *Service) queueStats(ctx context.Context) (platformapi.QueueStats, platformapi.HealthCheckDetail) {
	var q platformapi.QueueStats
	d := s.check(ctx, "queue", func(ctx context.Context) (string, error) {
		var row struct {
			Available, Running, Scheduled, Retryable, Discarded int64
			Oldest                                              *float64
		}
		err := s.db.QueryRowxContext(ctx, `
			SELECT count(*) FILTER (WHERE state = 'available'),
			       count(*) FILTER (WHERE state = 'running'),
			       count(*) FILTER (WHERE state = 'scheduled'),
			       count(*) FILTER (WHERE state = 'retryable'),
			       count(*) FILTER (WHERE state = 'discarded'),
			       extract(epoch FROM now() - min(scheduled_at) FILTER (WHERE state = 'available'))::float8
			FROM river_job`).Scan(&row.Available, &row.Running, &row.Scheduled, &row.Retryable, &row.Discarded, &row.Oldest)
		if err != nil {
			return "", err
		}
		q = platformapi.QueueStats{Available: row.Available, Running: row.Running, Scheduled: row.Scheduled,
			Retryable: row.Retryable, Discarded: row.Discarded, OldestAvailableAgeSeconds: row.Oldest}
		return "background queue reachable", nil
	})
	return q, d
}
