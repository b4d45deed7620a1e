package jobs

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/reviewrule"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// start starts the flow execution of a job of an app bound to a flow, in the job's transaction (see
// startJob, which writes the job after it): the job's input is the execution's input, and from then on
// the job moves with the execution (a trigger of the database, job_follows_execution, moves it in every
// transaction that moves the execution).
func (s *Service) start(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, job int64, sub submission, number int) (uuid.UUID, *run.Started, error) {
	id, st, ok, err := executions.ForJob(ctx, tx, s.d.Engine, executions.Spec{ID: *sub.execution, Org: g.App.OrganizationID,
		Flow: *g.App.APIID, Version: sub.version, Input: json.RawMessage(sub.input), CreatedBy: authorID(p), Actor: p.Actor(),
		RunNumber: number, Pre: sub.pre}, g.App.ID, job)
	if err != nil {
		return id, st, err
	}
	if !ok {
		return id, st, httpx.Conflict("the app's flow has no valid version to run; save a valid version of it first")
	}
	return id, st, nil
}

// prepare picks the version of the app's flow a new job runs and runs its first tasks that only
// compute, before the job's transaction (see run.Prepared); version 0 when the flow has no version that
// can run, which the start then reports. A submission started with others may take the version the
// process saw last (cached): the batch's statement checks it is still the one to run, and a batch where
// it is not is started again a submission at a time, each with the version read anew (see
// writeStarted).
func (s *Service) prepare(ctx context.Context, g *access.Grant, sub submission, cached bool) (int, *run.Prepared, error) {
	flow := *g.App.APIID
	v, ok := s.versions.Load(flow)
	if !cached || !ok {
		var err error
		if v, ok, err = executions.JobVersion(ctx, s.d.DB, flow); err != nil || !ok {
			s.versions.Delete(flow)
			return 0, nil, err
		}
		s.versions.Store(flow, v)
	}
	return v, s.d.Engine.Prepare(ctx, run.Execution{ID: *sub.execution, Org: g.App.OrganizationID, Flow: flow,
		Version: v, Input: json.RawMessage(sub.input)}), nil
}

// mayLabel refuses (403) a labeler who may not complete the review the job's execution waits for, by the
// rule /api applies to the same review (internal/engine/reviewrule): a review whose users were named is
// theirs and the administrators' to complete, through either interface.
func mayLabel(ctx context.Context, tx *sqlx.Tx, j lockedJob, p *auth.Principal) error {
	ok, err := reviewrule.MayLabel(ctx, tx, *j.Execution, reviewrule.For(p, true))
	if err != nil {
		return err
	}
	if !ok {
		return httpx.Forbidden("%s", reviewrule.Refusal)
	}
	return nil
}

// labelInFlow completes the review a SUSPENDED job's execution waits for with the labeler's response:
// the execution goes on (the job follows it to IN_PROGRESS, then COMPLETED with the flow's output) and
// the review records the label on the job (labeled_by, LABELED in its history), as it does when the
// review is completed through /api.
func (s *Service) labelInFlow(ctx context.Context, tx *sqlx.Tx, j lockedJob, p *auth.Principal, response json.RawMessage) error {
	ok, err := s.d.Reviews.CompleteForJob(ctx, tx, *j.Execution, response, p.UserID, p.Actor())
	if err != nil {
		return err
	}
	if !ok {
		return httpx.Conflict("the job's flow waits for no review now; it takes a response when its execution reaches a human_review task")
	}
	return nil
}
