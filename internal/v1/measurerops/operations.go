package measurerops

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

type operation struct {
	ID         uuid.UUID  `db:"id"`
	Org        uuid.UUID  `db:"organization_id"`
	App        uuid.UUID  `db:"app_id"`
	Type       string     `db:"type"`
	Status     string     `db:"status"`
	Dataset    *uuid.UUID `db:"dataset_id"`
	Parameters *uuid.UUID `db:"parameter_set_id"`
	Progress   float64    `db:"progress"`
	Error      *string    `db:"error"`
	CreatedBy  *string    `db:"created_by"`
	CreatedAt  time.Time  `db:"created_at"`
	StartedAt  *time.Time `db:"started_at"`
	FinishedAt *time.Time `db:"finished_at"`
}

const opColumns = `id, organization_id, app_id, type, status, dataset_id, parameter_set_id, progress, error, created_by,
	created_at, started_at, finished_at`

func (o operation) response() v1api.OperationReturn {
	return v1api.OperationReturn{Id: o.ID, AppId: o.App, Type: v1api.MeasurerOperationType(o.Type),
		Status: v1api.OperationReturnStatus(o.Status), DatasetId: o.Dataset, ParameterSetId: o.Parameters,
		Progress: float32(o.Progress), Error: o.Error, CreatedBy: o.CreatedBy, CreatedAt: o.CreatedAt.UTC(),
		StartedAt: utc(o.StartedAt), FinishedAt: utc(o.FinishedAt)}
}

// ListMeasurerOperations answers the app's last 100 operations, newest first.
func (s *Service) ListMeasurerOperations(ctx context.Context, req v1api.ListMeasurerOperationsRequestObject) (v1api.ListMeasurerOperationsResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	var ops []operation
	if err := s.d.DB.SelectContext(ctx, &ops, `SELECT `+opColumns+` FROM measurer_operations WHERE app_id = $1
		ORDER BY created_at DESC, id DESC LIMIT 100`, req.AppId); err != nil {
		return nil, err
	}
	out := make(v1api.ListMeasurerOperations200JSONResponse, len(ops))
	for i, o := range ops {
		out[i] = o.response()
	}
	return out, nil
}

// CreateMeasurerOperation records the operation, its dataset when it needs a new one, and the
// configuration's CALCULATING state, and queues the work, in one transaction.
func (s *Service) CreateMeasurerOperation(ctx context.Context, req v1api.CreateMeasurerOperationRequestObject) (v1api.CreateMeasurerOperationResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if g.APIID == nil {
		return nil, httpx.InvalidV1([]any{"path", "app_id"}, "value_error", "the app is not an instance of an API (it has no flow): there is nothing to measure")
	}
	version, ok, err := executions.JobVersion(ctx, s.d.DB, *g.APIID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.InvalidV1([]any{"path", "app_id"}, "value_error", "the app's flow has no valid version to run")
	}
	current := parameterSet(*g.APIID, version, g.Settings)
	if b.ParameterSetId != nil && *b.ParameterSetId != current {
		return nil, httpx.NotFound("parameter set")
	}
	op := operation{ID: uuid.New(), Org: g.OrganizationID, App: g.ID, Type: string(b.Type), Status: "QUEUED",
		Parameters: &current, CreatedBy: username(p)}
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		cfg, err := measurerconfig.Load(ctx, tx, g.ID)
		if err != nil {
			return err
		}
		if len(cfg.Metrics) == 0 {
			return httpx.InvalidV1([]any{"body"}, "value_error", "the measurer configuration selects no metrics")
		}
		res, err := tx.ExecContext(ctx, `UPDATE measurer_configurations SET state = 'CALCULATING', updated_at = now()
			WHERE app_id = $1 AND state <> 'CALCULATING'`, g.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return httpx.Conflict("another measurer operation of the app is queued or running; wait until it has ended (GET /v1/apps/%s/measurer/operation)", g.ID)
		}
		if op.Dataset, err = s.dataset(ctx, tx, g, cfg, b); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &op.CreatedAt, `INSERT INTO measurer_operations (id, organization_id, app_id, type,
			dataset_id, parameter_set_id, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
			op.ID, op.Org, op.App, op.Type, op.Dataset, op.Parameters, op.CreatedBy); err != nil {
			return err
		}
		_, err = s.queue.InsertTx(ctx, tx.Tx, Args{ID: op.ID}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v1api.CreateMeasurerOperation201JSONResponse(op.response()), nil
}

// dataset is the operation's dataset: the one named, a new snapshot of the API's baseline records for
// MEASURE, or the most recent measured one for CALIBRATE.
func (s *Service) dataset(ctx context.Context, tx *sqlx.Tx, g *access.Grant, cfg measurerconfig.Config, b *v1api.MeasurerOperationInput) (*uuid.UUID, error) {
	if b.DatasetId != nil {
		var ok bool
		if err := tx.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM measurement_datasets WHERE id = $1 AND app_id = $2)`,
			*b.DatasetId, g.ID); err != nil {
			return nil, err
		}
		if !ok {
			return nil, httpx.NotFound("dataset")
		}
		return b.DatasetId, nil
	}
	if b.Type == "CALIBRATE" {
		var ids []uuid.UUID
		if err := tx.SelectContext(ctx, &ids, `SELECT dataset_id FROM measurer_operations WHERE app_id = $1 AND type = 'MEASURE'
			AND status = 'SUCCEEDED' AND dataset_id IS NOT NULL ORDER BY created_at DESC LIMIT 1`, g.ID); err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, httpx.InvalidV1([]any{"body", "dataset_id"}, "value_error", "no dataset was measured yet: run MEASURE first")
		}
		return &ids[0], nil
	}
	id := uuid.New()
	limit := 100000
	if b.MaxEntries != nil {
		limit = *b.MaxEntries
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO measurement_datasets (id, organization_id, app_id, api_id) VALUES ($1, $2, $3, $4)`,
		id, g.OrganizationID, g.ID, *g.APIID); err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO measurement_dataset_records (dataset_id, baseline_id, input, response)
		SELECT $1, b.id, b.input, b.response FROM baseline_data b
		WHERE b.api_id = $2 AND b.type = ANY($3::text[]) ORDER BY b.id DESC LIMIT $4`,
		id, *g.APIID, pq.StringArray(cfg.BaselineTypes), limit)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, httpx.InvalidV1([]any{"body"}, "value_error", "the API has no baseline data of the configured types to build a dataset from")
	}
	return &id, nil
}

func username(p *auth.Principal) *string {
	if p.Credential == auth.CredentialAPIKey || p.Email == "" {
		return nil
	}
	e := p.Email
	return &e
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

var errStopped = errors.New("measurerops: operation no longer running")
