package measurerops

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// scheduleEvery is how often apps with a measure interval are looked at.
const scheduleEvery = time.Minute

type scheduleArgs struct{}

func (scheduleArgs) Kind() string { return "measurer_schedule" }

type scheduleWorker struct {
	river.WorkerDefaults[scheduleArgs]
	s *Service
}

// Work starts a MEASURE for every enabled app whose interval has passed since its last one, as the
// organization's service account (created_by null: a scheduled operation).
func (w *scheduleWorker) Work(ctx context.Context, _ *river.Job[scheduleArgs]) error {
	var due []struct {
		App uuid.UUID `db:"app_id"`
		Org uuid.UUID `db:"organization_id"`
	}
	if err := w.s.d.DB.SelectContext(ctx, &due, `SELECT c.app_id, c.organization_id FROM measurer_configurations c
		JOIN apps a ON a.id = c.app_id AND a.api_id IS NOT NULL AND a.status <> 'ARCHIVED'
		WHERE c.enabled AND c.measure_interval_hours IS NOT NULL AND cardinality(c.metrics) > 0 AND c.state <> 'CALCULATING'
		  AND NOT EXISTS (SELECT 1 FROM measurer_operations o WHERE o.app_id = c.app_id AND o.type = 'MEASURE'
		                  AND o.created_at > now() - make_interval(hours => c.measure_interval_hours))
		LIMIT 100`); err != nil {
		return err
	}
	for _, d := range due {
		p := &auth.Principal{OrganizationID: d.Org, Role: auth.RoleIntegration, ServiceAccount: true, Credential: auth.CredentialAPIKey}
		_, err := w.s.CreateMeasurerOperation(auth.WithPrincipal(ctx, p), v1api.CreateMeasurerOperationRequestObject{AppId: d.App,
			Body: &v1api.MeasurerOperationInput{Type: "MEASURE"}})
		// An app that cannot be measured now (no baseline data yet) is tried again at the next look.
		var he *httpx.Error
		if err != nil && !(errors.As(err, &he) && he.Status < 500) {
			return err
		}
	}
	return nil
}

// PeriodicJobs are the scheduler, for the queue's configuration.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(scheduleEvery),
		func() (river.JobArgs, *river.InsertOpts) { return scheduleArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
}
