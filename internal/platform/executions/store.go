package executions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

const columns = `x.id, x.organization_id, x.flow_id, x.flow_version, x.status, x.input, x.output, x.error, x.run_number,
	x.created_by, x.started_at, x.finished_at, x.created_at, x.updated_at, x.modified_by`

// row is one flow_executions row.
type row struct {
	ID         uuid.UUID       `db:"id"`
	Org        uuid.UUID       `db:"organization_id"`
	Flow       uuid.UUID       `db:"flow_id"`
	Version    int             `db:"flow_version"`
	Status     string          `db:"status"`
	Input      json.RawMessage `db:"input"`
	Output     *[]byte         `db:"output"`
	Error      *[]byte         `db:"error"`
	RunNumber  int             `db:"run_number"`
	CreatedBy  *uuid.UUID      `db:"created_by"`
	StartedAt  *time.Time      `db:"started_at"`
	FinishedAt *time.Time      `db:"finished_at"`
	CreatedAt  time.Time       `db:"created_at"`
	UpdatedAt  time.Time       `db:"updated_at"`
	ModifiedBy string          `db:"modified_by"`
}

func (r row) response(withRun bool) (platformapi.FlowExecutionResponseWithRunNumber, error) {
	out := platformapi.FlowExecutionResponseWithRunNumber{Id: r.ID, OrganizationId: r.Org, FlowId: r.Flow,
		FlowVersion: r.Version, Status: platformapi.ExecutionStatus(r.Status), CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy, Input: map[string]any{}, StartedAt: r.StartedAt,
		FinishedAt: r.FinishedAt}
	if err := json.Unmarshal(r.Input, &out.Input); err != nil {
		return out, err
	}
	if r.Output != nil {
		if err := json.Unmarshal(*r.Output, &out.Output); err != nil {
			return out, err
		}
	}
	if r.Error != nil {
		out.Error = &platformapi.FlowExecutionError{}
		if err := json.Unmarshal(*r.Error, out.Error); err != nil {
			return out, err
		}
		if out.Error.Type == "" {
			out.Error.Type = "error"
		}
	}
	if withRun {
		n := r.RunNumber
		out.RunNumber = &n
	}
	return out, nil
}

// plain is the response without its run number.
func plain(e platformapi.FlowExecutionResponseWithRunNumber) platformapi.FlowExecutionResponse {
	return platformapi.FlowExecutionResponse{Id: e.Id, OrganizationId: e.OrganizationId, FlowId: e.FlowId,
		FlowVersion: e.FlowVersion, Status: e.Status, Input: e.Input, Output: e.Output, Error: e.Error,
		StartedAt: e.StartedAt, FinishedAt: e.FinishedAt, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		ModifiedBy: e.ModifiedBy}
}

var errNotFound = httpx.NotFound("flow execution")

// visible reads an execution of the caller's organization whose flow the caller may see; anything
// else is the same 404 as a missing id.
func visible(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID) (row, error) {
	q := `SELECT ` + columns + ` FROM flow_executions x JOIN flows f ON f.id = x.flow_id
		WHERE x.id = $1 AND x.organization_id = $2 AND ` + flows.SeenBy(p, "$3")
	args := []any{id, p.OrganizationID}
	if !flows.Admin(p) {
		args = append(args, p.UserID)
	}
	var r row
	err := db.GetContext(ctx, &r, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}
