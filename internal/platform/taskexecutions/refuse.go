package taskexecutions

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
)

// reviewConflict is the 409 of a report on an attempt whose outcome a review decides.
func reviewConflict(task string, id uuid.UUID) error {
	return httpx.Conflict("the attempt of task %q waits for human review %s: complete the review with "+
		"POST /api/human-review-tasks/%s/complete instead of reporting the attempt", task, id, id)
}

// heldByReview refuses a report on an attempt that an open review holds, whatever the task's type: the
// review's decision is the attempt's outcome.
func heldByReview(ctx context.Context, tx *sqlx.Tx, k run.AttemptKey) error {
	var ids []uuid.UUID
	err := tx.SelectContext(ctx, &ids, `SELECT id FROM human_review_tasks WHERE flow_execution_id = $1
		AND target_task_name = $2 AND target_task_execution_idx = $3 AND holds_attempt AND status <> 'completed'
		ORDER BY created_at LIMIT 1`, k.Execution, k.Task, k.Idx)
	if err != nil || len(ids) == 0 {
		return err
	}
	return reviewConflict(k.Task, ids[0])
}

// refused maps the engine's refusals of a report to 409s; other errors pass through.
func refused(k run.AttemptKey, err error) error {
	var notOutside run.NotOutsideError
	var move run.MoveError
	switch {
	case errors.As(err, &move):
		return httpx.Conflict("%s", move.Error())
	case errors.As(err, &notOutside) && notOutside.Type == run.HumanReview:
		// Its review may not exist yet (the task is not ready); the message then names the route.
		return httpx.Conflict("%s; complete its review with POST /api/human-review-tasks/{id}/complete "+
			"(GET /api/human-review-tasks?flow_execution_id=%s lists it)", notOutside.Error(), k.Execution)
	case errors.As(err, &notOutside):
		return httpx.Conflict("%s", notOutside.Error())
	}
	return err
}
