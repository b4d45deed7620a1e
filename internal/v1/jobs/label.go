package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/engine/reviewrule"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// labelQueue describes the jobs of an app that wait for a label.
type labelQueue struct {
	// suspendedOnly: SUSPENDED jobs wait for human input; on an app without a flow SCHEDULED ones too,
	// since nothing else will ever run them.
	suspendedOnly bool
	minutes       int
	enabled       bool
}

func queueOf(g *access.Grant) labelQueue {
	st := g.App.ParsedSettings()
	return labelQueue{suspendedOnly: g.App.APIID != nil, minutes: st.LabelingLockMinutes, enabled: st.LabelingEnabled}
}

// leaseQuery hands out a job through the SQL function label_lease (db/schema.sql), which decides and
// records the lease in one round trip, and reads it as Columns select a job. The function's plans are
// cached per connection, and this statement's plan is a function scan: nothing is planned per request.
// It keeps the review rule (internal/engine/reviewrule): a job whose review is reserved for its named
// users goes to them and to administrators only; $11 is whether the caller is one.
const leaseQuery = `SELECT ` + Columns + `, j.lock_expires_at, l.holder, l.labeler, l.remaining, j.feedback_count
	FROM label_lease($1::uuid, $2::uuid, $3::uuid, $4::text, $5::int, $6::boolean, $7::boolean, $8::bigint,
	                 $9::timestamptz, $10::timestamptz, $11::boolean) l,
	     LATERAL (SELECT (l.job).*) j`

// GetJobToLabel hands the caller the next job to label that it may label: the highest priority first,
// the oldest within a priority. The first free job is taken with FOR UPDATE SKIP LOCKED, so concurrent workers each lock a
// different row and never get the same job; one worker's own requests are serialised, so asking twice
// at once does not take two jobs. A job the caller holds comes back to it (renewed) first.
func (s *Service) GetJobToLabel(ctx context.Context, req v1api.GetJobToLabelRequestObject) (v1api.GetJobToLabelResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	q := queueOf(g)
	prm := req.Params
	if prm.JobId == nil && !q.enabled {
		return v1api.GetJobToLabel204Response{}, nil
	}
	var r Row
	var expires time.Time
	var holder, labeler *string
	var remaining int64
	var feedback int
	rows, err := s.d.DB.QueryContext(ctx, leaseQuery, g.App.OrganizationID, g.App.ID, p.UserID, HistoryActor(p), q.minutes,
		q.suspendedOnly, q.enabled, prm.JobId, prm.CreatedStartDate, prm.CreatedEndDate, reviewrule.Admin(p.Role))
	if err != nil {
		return nil, leaseError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, leaseError(err)
		}
		return v1api.GetJobToLabel204Response{}, nil
	}
	if err := rows.Scan(append(r.dest(), &expires, &holder, &labeler, &remaining, &feedback)...); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	r.AssignedTo, r.LabeledBy = holder, labeler
	// Most jobs in the queue have no feedback yet: its messages cost a query only when there are some.
	var messages []Feedback
	if feedback > 0 {
		if messages, err = feedbackOf(ctx, s.d.DB, r.ID); err != nil {
			return nil, err
		}
	}
	out := v1api.JobCollaborator{Job: WithFeedback(ToResponse(r), messages), LockExpiresAt: expires, Remaining: remaining}
	if holder != nil {
		out.AssignedTo = *holder
	}
	return v1api.GetJobToLabel200JSONResponse(out), nil
}

// leaseError answers label_lease's "no such job" (a jobId of another app or organization, or none) as
// the 404 of a missing job.
func leaseError(err error) error {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "P0002" {
		return errJobNotFound()
	}
	return err
}
