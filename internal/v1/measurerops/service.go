// Package measurerops runs the measurer's operations: MEASURE operations run an app's flow over a
// dataset of its API's baseline records, as jobs of the app, and record the configured metrics of their
// responses against the baseline; CALIBRATE operations derive per-field confidence thresholds from a
// dataset's measured jobs. Operations are durable River jobs; while one is queued or running the app's
// measurer configuration is CALCULATING.
package measurerops

import (
	"log/slog"
	"strconv"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/jobs"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Grants *access.Grants
	Jobs   *jobs.Service
	Logger *slog.Logger
}

// Service implements the measurer operations and confidences of v1api.StrictServerInterface.
type Service struct {
	d     Deps
	queue *queue.Client
}

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// SetQueue gives the service the queue its operations go to (built after the workers are registered).
func (s *Service) SetQueue(q *queue.Client) { s.queue = q }

// system is who measurement jobs are submitted as: the organization's service account, shown as
// nobody in job history and as an API key's work in usage.
func system(org uuid.UUID) *auth.Principal {
	return &auth.Principal{OrganizationID: org, Role: auth.RoleIntegration, ServiceAccount: true, Credential: auth.CredentialAPIKey}
}

// parameterSpace and parameterSet name the combination a job runs with: the API, its version jobs run, and the app's
// settings; any change of them starts a new parameter set.
var parameterSpace = uuid.MustParse("8e1f4f0a-5b7c-4a55-b2f8-0d7b7bf3a7a1")

func parameterSet(api uuid.UUID, version int, settings []byte) uuid.UUID {
	return uuid.NewSHA1(parameterSpace, []byte(api.String()+"|"+strconv.Itoa(version)+"|"+string(settings)))
}
