package bulk

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// NewOperation is a background operation over the jobs of an app, to record and queue with Start.
type NewOperation struct {
	App, Org uuid.UUID
	// Type is TypeCancel, TypeDelete or TypeRerun.
	Type   string
	Filter filter.Set
	// BatchID is the batch id given to the jobs a RERUN_JOBS operation resubmits.
	BatchID *string
	// CreatedBy is the username of the user who asked for it (nil for an API key).
	CreatedBy *string
	// Total is the number of jobs it covers, when known.
	Total *int64
	// UpTo, when positive, bounds the selection to jobs with an id up to it: the jobs that existed when
	// the operation was asked for, so jobs submitted later are not swept up by it.
	UpTo int64
}

// params is what bulk_operations.params holds for the worker.
type params struct {
	UpTo int64 `json:"up_to,omitempty"`
}

// Start records the operation (QUEUED) and queues its work in tx, so both commit together or not at
// all. The apps route starts its RERUN_JOBS operations with it too.
func Start(ctx context.Context, tx *sqlx.Tx, q *queue.Client, op NewOperation) (uuid.UUID, error) {
	f, err := json.Marshal(op.Filter)
	if err != nil {
		return uuid.Nil, err
	}
	pr, err := json.Marshal(params{UpTo: op.UpTo})
	if err != nil {
		return uuid.Nil, err
	}
	var id uuid.UUID
	err = tx.GetContext(ctx, &id, `
		INSERT INTO bulk_operations (organization_id, app_id, type, status, filter, params, batch_id, total, created_by)
		VALUES ($1, $2, $3, 'QUEUED', $4, $5, $6, $7, $8) RETURNING id`,
		op.Org, op.App, op.Type, string(f), string(pr), op.BatchID, op.Total, op.CreatedBy)
	if err != nil {
		return uuid.Nil, fmt.Errorf("record bulk operation: %w", err)
	}
	if _, err := q.InsertTx(ctx, tx.Tx, OperationArgs{ID: id}, nil); err != nil {
		return uuid.Nil, fmt.Errorf("queue bulk operation: %w", err)
	}
	return id, nil
}

// operation is a bulk_operations row.
type operation struct {
	ID         uuid.UUID       `db:"id"`
	AppID      uuid.UUID       `db:"app_id"`
	OrgID      uuid.UUID       `db:"organization_id"`
	Type       string          `db:"type"`
	Status     string          `db:"status"`
	Filter     json.RawMessage `db:"filter"`
	Params     []byte          `db:"params"`
	BatchID    *string         `db:"batch_id"`
	Total      *int64          `db:"total"`
	Processed  int64           `db:"processed"`
	LastID     int64           `db:"last_id"`
	Error      *string         `db:"error"`
	CreatedBy  *string         `db:"created_by"`
	CreatedAt  time.Time       `db:"created_at"`
	StartedAt  *time.Time      `db:"started_at"`
	FinishedAt *time.Time      `db:"finished_at"`
}

const operationColumns = `id, app_id, organization_id, type, status, filter, params, batch_id, total, processed,
	last_id, error, created_by, created_at, started_at, finished_at`

func (o operation) api() v1api.BulkOperation {
	return v1api.BulkOperation{
		Id: o.ID, AppId: o.AppID, Type: v1api.BulkOperationType(o.Type), Status: v1api.BulkOperationStatus(o.Status),
		Total: o.Total, Processed: o.Processed, BatchId: o.BatchID, Error: o.Error, CreatedBy: o.CreatedBy,
		CreatedAt: o.CreatedAt, StartedAt: o.StartedAt, FinishedAt: o.FinishedAt,
	}
}

// GetBulkOperation answers an operation of the app. As the contract says, any member of the app may
// follow its operations; an operation of another app is 404 like a missing one.
func (s *Service) GetBulkOperation(ctx context.Context, req v1api.GetBulkOperationRequestObject) (v1api.GetBulkOperationResponseObject, error) {
	g, err := s.d.Grants.Resolve(ctx, auth.MustFromContext(ctx), req.AppId)
	if err != nil {
		return nil, err
	}
	var o operation
	err = s.d.DB.GetContext(ctx, &o, `SELECT `+operationColumns+` FROM bulk_operations
		WHERE id = $1 AND app_id = $2 AND organization_id = $3`, req.OperationId, g.ID, g.OrganizationID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, httpx.NotFound("bulk operation")
	}
	if err != nil {
		return nil, err
	}
	return v1api.GetBulkOperation200JSONResponse(o.api()), nil
}
