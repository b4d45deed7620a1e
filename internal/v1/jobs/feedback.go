package jobs

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// SubmitJobFeedback adds a feedback message. The job row keeps what the filters test (feedback count
// and tags, the latest verdict, the first verdict's outcome), so it changes in the same transaction.
func (s *Service) SubmitJobFeedback(ctx context.Context, req v1api.SubmitJobFeedbackRequestObject) (v1api.SubmitJobFeedbackResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	b := req.Body
	tags := []string{}
	if b != nil && b.FeedbackTags != nil {
		tags = dedupe(*b.FeedbackTags)
	}
	if b == nil || (b.Message == nil && len(tags) == 0 && b.Correct == nil) {
		return nil, httpx.InvalidV1([]any{"body"}, "value_error", "send at least one of message, feedback_tags and correct")
	}
	if b.Correct != nil {
		if err := g.Require(access.Reviewer); err != nil {
			return nil, err
		}
	}
	var fb Feedback
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		j, err := lockJob(ctx, tx, g, req.JobId)
		if err != nil {
			return err
		}
		err = tx.GetContext(ctx, &fb, `
			INSERT INTO job_feedback AS f (job_id, app_id, organization_id, author, message, feedback_tags, correct)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING `+FeedbackColumns, j.ID, g.App.ID, g.App.OrganizationID, authorID(p), b.Message, pq.StringArray(tags), b.Correct)
		if err != nil {
			return err
		}
		// A verdict on a finished job is its review; before that the job's pipeline state stays put.
		state := j.ProcessingState
		if b.Correct != nil && j.Status == "COMPLETED" {
			state = "REVIEWED"
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE jobs SET
			  feedback_count = feedback_count + 1,
			  feedback_tags = feedback_tags || ARRAY(SELECT t FROM unnest($2::text[]) WITH ORDINALITY u(t, n)
			                                         WHERE t <> ALL(feedback_tags) ORDER BY n),
			  last_feedback_at = $3,
			  correct = coalesce($4::boolean, correct),
			  reviewed = CASE WHEN $4::boolean IS NULL THEN reviewed WHEN $4::boolean THEN 'CORRECT' ELSE 'NOT_CORRECT' END,
			  first_incorrect = CASE WHEN $4::boolean IS NOT NULL AND reviewed IS NULL THEN NOT $4::boolean ELSE first_incorrect END,
			  processing_state = $5,
			  updated_at = now()
			WHERE app_id = $6 AND id = $1`, j.ID, pq.StringArray(tags), fb.CreatedAt, b.Correct, state, j.AppID)
		if err != nil {
			return err
		}
		actor := HistoryActor(p)
		evs := []event{{Event: "FEEDBACK_ADDED", Actor: actor, Details: map[string]any{"feedback_id": fb.ID,
			"message": b.Message, "feedback_tags": tags, "correct": b.Correct}}}
		if b.Correct != nil {
			verdict := "NOT_CORRECT"
			if *b.Correct {
				verdict = "CORRECT"
			}
			evs = append(evs, event{Event: "REVIEWED", Actor: actor, Details: map[string]any{"verdict": verdict, "feedback_id": fb.ID}})
		}
		if state != j.ProcessingState {
			evs = append(evs, event{Event: "PROCESSING_STATE_CHANGED", Actor: actor, From: &j.ProcessingState, To: &state})
		}
		return record(ctx, tx, g.App.OrganizationID, g.App.ID, j.ID, evs...)
	})
	if err != nil {
		return nil, err
	}
	return v1api.SubmitJobFeedback201JSONResponse(fb.Response()), nil
}
