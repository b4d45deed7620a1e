package jobs

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// SubmitJobResponse takes a person's response: the label of a job waiting for one, or the correction
// of a completed job. The job row is locked while deciding, so a label and a lease of the same job
// never interleave.
func (s *Service) SubmitJobResponse(ctx context.Context, req v1api.SubmitJobResponseRequestObject) (v1api.SubmitJobResponseResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	if req.Body == nil || len(req.Body.Response) == 0 || isNull(req.Body.Response) {
		return nil, httpx.InvalidV1([]any{"body", "response"}, "missing", "response is required and must be an object")
	}
	resp := string(req.Body.Response)
	var out v1api.Job
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		// A job waiting in its flow for a person is labeled through its execution's review, which takes
		// the locks in the engine's order (the job last); any other job is locked first.
		if j, err := readJob(ctx, tx, g, req.JobId, ""); err != nil {
			return err
		} else if j.Execution != nil && j.Status == "SUSPENDED" {
			// Whether the caller may label it at all comes before who holds it, as on /api.
			if err := mayLabel(ctx, tx, j, p); err != nil {
				return err
			}
			if j.Held && *j.AssignedTo != p.UserID {
				return httpx.Conflict("another worker holds this job for labeling")
			}
			if err := s.labelInFlow(ctx, tx, j, p, req.Body.Response); err != nil {
				return err
			}
			out, err = fullJob(ctx, tx, g, j.ID)
			return err
		}
		j, err := lockJob(ctx, tx, g, req.JobId)
		if err != nil {
			return err
		}
		var evs []event
		switch j.Status {
		case "SCHEDULED", "SUSPENDED":
			if j.Held && *j.AssignedTo != p.UserID {
				return httpx.Conflict("another worker holds this job for labeling")
			}
			evs, err = label(ctx, tx, g, j, p.UserID, string(resp))
		case "COMPLETED":
			if err := g.Require(access.Reviewer); err != nil {
				return err
			}
			evs, err = correct(ctx, tx, j, p.UserID, string(resp))
		default:
			return httpx.Conflict("a %s job cannot take a response", j.Status)
		}
		if err != nil {
			return err
		}
		for i := range evs {
			evs[i].Actor = HistoryActor(p)
		}
		if err := record(ctx, tx, g.App.OrganizationID, g.App.ID, j.ID, evs...); err != nil {
			return err
		}
		out, err = fullJob(ctx, tx, g, j.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v1api.SubmitJobResponse200JSONResponse(out), nil
}

// label completes a job without a flow that waits for a label, and releases it: the label is the job's
// final response. (A job of a flow is labeled through its review: labelInFlow.)
func label(ctx context.Context, tx *sqlx.Tx, g *access.Grant, j lockedJob, user uuid.UUID, resp string) ([]event, error) {
	state := "DONE"
	if sampledForReview(j.ID, g.App.ParsedSettings().ReviewRate) {
		state = "LABELED"
	}
	again := j.LabeledBy != nil
	_, err := tx.ExecContext(ctx, `
		UPDATE jobs SET status = 'COMPLETED', processing_state = $2, response = $3, completed_at = now(),
		  labeled_by = $4, labeled_at = now(), relabeled = relabeled OR $5, assigned_to = NULL, lock_expires_at = NULL,
		  updated_at = now()
		WHERE app_id = $6 AND id = $1`, j.ID, state, resp, user, again, j.AppID)
	if err != nil {
		return nil, err
	}
	kind := "LABELED"
	if again {
		kind = "RELABELED"
	}
	completed := "COMPLETED"
	evs := []event{{Event: kind, Details: previous(j)}, {Event: "STATUS_CHANGED", From: &j.Status, To: &completed}}
	if state != j.ProcessingState {
		evs = append(evs, event{Event: "PROCESSING_STATE_CHANGED", From: &j.ProcessingState, To: &state})
	}
	return evs, nil
}

// correct replaces a completed job's response: an edit, and a relabel when a person had labeled it.
func correct(ctx context.Context, tx *sqlx.Tx, j lockedJob, user uuid.UUID, resp string) ([]event, error) {
	again := j.LabeledBy != nil
	_, err := tx.ExecContext(ctx, `
		UPDATE jobs SET response = $2, edited = true, relabeled = relabeled OR $3, labeled_by = $4, labeled_at = now(),
		  updated_at = now()
		WHERE app_id = $5 AND id = $1`, j.ID, resp, again, user, j.AppID)
	if err != nil {
		return nil, err
	}
	kind := "EDITED"
	if again {
		kind = "RELABELED"
	}
	return []event{{Event: kind, Details: previous(j)}}, nil
}

// previous is the history detail of a replaced response.
func previous(j lockedJob) any {
	if j.Response == nil {
		return nil
	}
	return map[string]any{"previous_response": json.RawMessage(*j.Response)}
}

// sampledForReview decides whether a labeled job waits for a review (processing state LABELED) or is
// done. The decision is a hash of the job id against the app's review_rate rather than a coin toss:
// the share of sampled jobs is the rate all the same, and the same job always gets the same answer.
func sampledForReview(id int64, rate float64) bool {
	switch {
	case rate <= 0:
		return false
	case rate >= 1:
		return true
	}
	h := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(id))
	_, _ = h.Write(b[:])
	return float64(h.Sum64()>>11)/float64(1<<53) < rate
}
