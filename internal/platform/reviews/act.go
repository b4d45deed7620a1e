package reviews

import (
	"context"
	"errors"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/reviewrule"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
)

var (
	errNotAssigned  = httpx.Forbidden("only users assigned to this review may start it")
	errMayNotDecide = httpx.Forbidden("%s", reviewrule.Refusal)
	errCompleted    = httpx.Conflict("the review task is already completed")
)

// stateConflict is the 409 of a review that can no longer be acted on, or nil: a completed review, a
// deleted execution, or an assignment of the caller that is already over.
func stateConflict(r reviewRow, a *assignmentRow) error {
	switch {
	case r.Status == "completed":
		return errCompleted
	case r.ExecutionDeleted:
		return errExecutionDeleted
	case a != nil && a.Status == "completed":
		return httpx.Conflict("you already completed your review of this task")
	case a != nil && a.Status == "cancelled":
		return httpx.Conflict("your assignment on this review task is cancelled")
	}
	return nil
}

// StartHumanReviewTask moves the caller's assignment, and the task on its first start, to in progress.
func (s *Service) StartHumanReviewTask(ctx context.Context, req platformapi.StartHumanReviewTaskRequestObject) (platformapi.StartHumanReviewTaskResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var a assignmentRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		r, err := readable(ctx, tx, p, req.Id, true)
		if err != nil {
			return err
		}
		a0, ok, err := mine(ctx, tx, r.ID, p.UserID)
		if err != nil {
			return err
		}
		if !ok {
			return errNotAssigned
		}
		if err := stateConflict(r, &a0); err != nil {
			return err
		}
		a = a0
		if a.Status == "in_progress" {
			return nil
		}
		if err := tx.GetContext(ctx, &a, `UPDATE human_review_assignments a SET status = 'in_progress',
				started_at = now(), updated_at = now(), modified_by = $2
			WHERE id = $1 RETURNING `+assignmentColumns, a.ID, p.Actor()); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE human_review_tasks SET status = 'in_progress', updated_at = now(),
			modified_by = $2 WHERE id = $1 AND status = 'pending'`, r.ID, p.Actor())
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.StartHumanReviewTask200JSONResponse(a.response()), nil
}

// CompleteHumanReviewTask records the caller's verdict. An approval counts until required_approvals
// is reached; that approval, any rejection, or an administrator's completion without an assignment
// decides the review. A completion that decides a review of an /api execution is recorded with the
// others of its execution that arrive meanwhile (completeAlongside); any other, in a transaction of its
// own.
func (s *Service) CompleteHumanReviewTask(ctx context.Context, req platformapi.CompleteHumanReviewTaskRequestObject) (platformapi.CompleteHumanReviewTaskResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := *req.Body
	err := s.completeAlongside(ctx, p, req.Id, b)
	if errors.Is(err, run.ErrAlone) {
		err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
			j, err := judge(ctx, tx, p, req.Id, b)
			if err != nil {
				return err
			}
			if j.v != nil {
				return s.decide(ctx, tx, j.r, *j.v)
			}
			// An approval that does not decide: the caller's assignment is completed and the approval counted.
			if _, err := tx.ExecContext(ctx, `UPDATE human_review_assignments SET status = 'completed',
				started_at = coalesce(started_at, now()), completed_at = now(), review_result = $2, updated_at = now(),
				modified_by = $3 WHERE id = $1`, j.own.ID, b.ReviewResult, p.Actor()); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE human_review_tasks SET approvals = approvals + 1,
				status = 'in_progress', updated_at = now(), modified_by = $2 WHERE id = $1`, j.r.ID, p.Actor())
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	r, err := readable(ctx, s.db, p, req.Id, false)
	if err != nil {
		return nil, err
	}
	out, err := r.response()
	return platformapi.CompleteHumanReviewTask200JSONResponse(out), err
}
