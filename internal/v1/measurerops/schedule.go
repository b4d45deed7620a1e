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
	"github.com/loopwork/loopwork/internal/queue"
)

// scheduleEvery is how often apps with a measure interval are looked at after a look that started a
// measurement, and scheduleIdle the longest between looks that find none due (see queue.Sweep): the
// intervals are whole hours, and a measurement that starts some minutes after its hour is on time. The
// look was a River job every minute, three transactions of an idle server's minute.
const (
	scheduleEvery = time.Minute
	scheduleIdle  = 10 * time.Minute
)

// scheduleArgs is a job that looks once. The leader no longer enqueues it periodically (see Sweep); the
// worker stays for jobs an older version left queued and for an operator's retry.
type scheduleArgs struct{}

func (scheduleArgs) Kind() string { return "measurer_schedule" }

type scheduleWorker struct {
	river.WorkerDefaults[scheduleArgs]
	s *Service
}

// Work starts a MEASURE for every enabled app whose interval has passed since its last one, as the
// organization's service account (created_by null: a scheduled operation).
func (w *scheduleWorker) Work(ctx context.Context, _ *river.Job[scheduleArgs]) error {
	_, err := w.s.schedule(ctx)
	return err
}

// schedule starts the MEASURE operations due, and returns how many it tried.
func (s *Service) schedule(ctx context.Context) (int, error) {
	var due []struct {
		App uuid.UUID `db:"app_id"`
		Org uuid.UUID `db:"organization_id"`
	}
	if err := s.d.DB.SelectContext(ctx, &due, `SELECT c.app_id, c.organization_id FROM measurer_configurations c
		JOIN apps a ON a.id = c.app_id AND a.api_id IS NOT NULL AND a.status <> 'ARCHIVED'
		WHERE c.enabled AND c.measure_interval_hours IS NOT NULL AND cardinality(c.metrics) > 0 AND c.state <> 'CALCULATING'
		  AND NOT EXISTS (SELECT 1 FROM measurer_operations o WHERE o.app_id = c.app_id AND o.type = 'MEASURE'
		                  AND o.created_at > now() - make_interval(hours => c.measure_interval_hours))
		LIMIT 100`); err != nil {
		return 0, err
	}
	for _, d := range due {
		p := &auth.Principal{OrganizationID: d.Org, Role: auth.RoleIntegration, ServiceAccount: true, Credential: auth.CredentialAPIKey}
		_, err := s.CreateMeasurerOperation(auth.WithPrincipal(ctx, p), v1api.CreateMeasurerOperationRequestObject{AppId: d.App,
			Body: &v1api.MeasurerOperationInput{Type: "MEASURE"}})
		// An app that cannot be measured now (no baseline data yet) is tried again at the next look.
		var he *httpx.Error
		if err != nil && !(errors.As(err, &he) && he.Status < 500) {
			return 0, err
		}
	}
	return len(due), nil
}

// Sweep is the scheduler, for the leader replica.
func (s *Service) Sweep() *queue.Sweep {
	return &queue.Sweep{Name: "measurer_schedule", Every: scheduleEvery, Idle: scheduleIdle,
		Run: func(ctx context.Context) (queue.Outcome, error) {
			n, err := s.schedule(ctx)
			return queue.Outcome{Found: n > 0}, err
		}}
}
