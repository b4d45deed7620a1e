package reviews

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

var (
	errExecutionNotFound = httpx.NotFound("flow execution")
	errExecutionDeleted  = httpx.Conflict("the flow execution is deleted; its reviews can be read but no longer changed")
)

// CreateHumanReviewTask opens a review for an outside worker or an administrator (the permission table
// keeps other roles out). A running target attempt waits for the review as the engine's own would.
func (s *Service) CreateHumanReviewTask(ctx context.Context, req platformapi.CreateHumanReviewTaskRequestObject) (platformapi.CreateHumanReviewTaskResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	var id uuid.UUID
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var x struct {
			Flow    uuid.UUID `db:"flow_id"`
			Version int       `db:"flow_version"`
			Status  string    `db:"status"`
		}
		q := `SELECT x.flow_id, x.flow_version, x.status FROM flow_executions x JOIN flows f ON f.id = x.flow_id
			WHERE x.id = $1 AND x.organization_id = $2 AND ` + flows.SeenBy(p, "$3") + ` FOR UPDATE OF x`
		args := []any{b.FlowExecutionId, p.OrganizationID}
		if !flows.Admin(p) {
			args = append(args, p.UserID)
		}
		if err := tx.GetContext(ctx, &x, q, args...); errors.Is(err, sql.ErrNoRows) {
			return errExecutionNotFound
		} else if err != nil {
			return err
		}
		if x.Status == "deleted" {
			return errExecutionDeleted
		}
		var source json.RawMessage
		if err := tx.GetContext(ctx, &source, `SELECT coalesce(output, 'null') FROM task_executions
			WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3`,
			b.FlowExecutionId, b.SourceTaskName, b.SourceTaskExecutionIdx); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var target string
		if err := tx.GetContext(ctx, &target, `SELECT status FROM task_executions
			WHERE flow_execution_id = $1 AND task_name = $2 AND task_execution_idx = $3 FOR UPDATE`,
			b.FlowExecutionId, b.TargetTaskName, b.TargetTaskExecutionIdx); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		holds := target == "running" && x.Status != "completed" && x.Status != "failed" && x.Status != "stale"
		var err error
		id, err = s.open(ctx, tx, opening{org: p.OrganizationID, execution: b.FlowExecutionId, flow: x.Flow,
			version: x.Version, target: b.TargetTaskName, targetIdx: b.TargetTaskExecutionIdx, source: b.SourceTaskName,
			sourceIdx: b.SourceTaskExecutionIdx, content: source, instructions: b.Instructions, users: b.AssignedUsers,
			required: 1, holds: holds, actor: p.Actor()})
		var bad badUsers
		var dup errOpen
		switch {
		case errors.As(err, &bad):
			return httpx.Invalid([]any{"body", "assigned_users"}, "value_error", bad.Error())
		case errors.As(err, &dup):
			return httpx.Conflict("%s", dup.Error())
		case err != nil:
			return err
		}
		if !holds {
			return nil
		}
		// The attempt now waits for people, not for its deadline, and the execution for input.
		return run.ParkForReview(ctx, tx, run.AttemptKey{Execution: b.FlowExecutionId, Task: b.TargetTaskName,
			Idx: b.TargetTaskExecutionIdx})
	})
	if err != nil {
		return nil, err
	}
	r, err := readable(ctx, s.db, p, id, false)
	if err != nil {
		return nil, err
	}
	out, err := r.response()
	return platformapi.CreateHumanReviewTask201JSONResponse(out), err
}
