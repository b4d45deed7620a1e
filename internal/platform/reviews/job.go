package reviews

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/reviewrule"
)

// CompleteForJob completes, in tx, the open review of a /v1 job's execution with the response a
// labeler sent through /v1 (PUT .../jobs/{id}/response): approved, the response as the reviewed output.
// It is the other door to the same review as POST /api/human-review-tasks/{id}/complete, with the same
// effect: the execution goes on and the job follows it. The caller has checked that the labeler may
// complete it (internal/engine/reviewrule). It reports false when the execution waits for no review.
func (s *Service) CompleteForJob(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, response json.RawMessage, by uuid.UUID, actor string) (bool, error) {
	var id *uuid.UUID
	if err := tx.GetContext(ctx, &id, `SELECT `+reviewrule.JobReview("$1"), exec); err != nil {
		return false, err
	}
	if id == nil {
		return false, nil
	}
	r, err := byID(ctx, tx, *id)
	if err != nil {
		return false, err
	}
	// A labeler who is an assigned user gave their approval, as on /api: their assignment is completed
	// and counted, not cancelled with the others'.
	if _, err := tx.ExecContext(ctx, `
		WITH a AS (UPDATE human_review_assignments SET status = 'completed', started_at = coalesce(started_at, now()),
		             completed_at = now(), review_result = true, updated_at = now(), modified_by = $3
		           WHERE human_review_task_id = $1 AND user_id = $2 AND status IN ('pending', 'in_progress') RETURNING id)
		UPDATE human_review_tasks SET approvals = approvals + 1 WHERE id = $1 AND EXISTS (SELECT 1 FROM a)`,
		r.ID, by, actor); err != nil {
		return false, err
	}
	approved := true
	return true, s.decide(ctx, tx, r, verdict{result: &approved, output: asObject(response), by: &by, actor: actor})
}

// labelJob records, after the engine has moved the execution on, who labeled the /v1 job a review
// belongs to, whichever door completed the review: labeled_by and labeled_at, relabeled when a person
// had labeled it before, its labeling lock released, and a LABELED (or RELABELED) history row.
func labelJob(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, review uuid.UUID, by *uuid.UUID) error {
	if by == nil {
		return nil // a review that timed out: nobody labeled the job
	}
	_, err := tx.ExecContext(ctx, `
		WITH j AS (
			SELECT j.app_id, j.id, j.organization_id, j.labeled_by IS NOT NULL AS again, j.response
			FROM flow_executions x JOIN jobs j ON j.app_id = x.job_app_id AND j.id = x.job_id
			WHERE x.id = $1 FOR UPDATE OF j),
		u AS (
			UPDATE jobs SET labeled_by = $2, labeled_at = now(), relabeled = jobs.relabeled OR j.again,
				assigned_to = NULL, lock_expires_at = NULL, updated_at = now()
			FROM j WHERE jobs.app_id = j.app_id AND jobs.id = j.id)
		INSERT INTO job_history (job_id, app_id, organization_id, event, actor, details)
		SELECT j.id, j.app_id, j.organization_id, CASE WHEN j.again THEN 'RELABELED' ELSE 'LABELED' END,
			(SELECT email::text FROM users WHERE id = $2),
			jsonb_build_object('human_review_task_id', $3::uuid) || CASE WHEN j.response IS NULL THEN '{}'::jsonb
				ELSE jsonb_build_object('previous_response', j.response) END
		FROM j`, exec, by, review)
	return err
}
