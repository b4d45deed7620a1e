package reviews

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/run"
)

// completeAlongside completes a review as CompleteHumanReviewTask's transaction would, but with the
// other completions of its execution that arrive meanwhile (run.Engine.ReportTogether), when this
// completion decides it (a rejection, or an approval where one is required) and an attempt of an /api
// execution waits for it. The reviews a join waits for, completed at the same moment, would otherwise
// each commit on their own while holding the join's counter and the execution's row; so a round of them
// commits at a time.
//
// The review is read first without a lock, to know the attempt and the flow's version; in the round's
// transaction it is read again, locked, and judged as the transaction of its own would judge it, and its
// rows are written there before the engine's. run.ErrAlone when the completion is not one of these, or
// its round was not recorded (one of the round's reviews was refused, say): nothing of it was written,
// and the caller completes it in a transaction of its own, which answers whatever refused it.
func (s *Service) completeAlongside(ctx context.Context, p *auth.Principal, id uuid.UUID, b platformapi.HumanReviewTaskCompleteRequest) error {
	r, err := readable(ctx, s.db, p, id, false)
	if err != nil {
		return err
	}
	if !r.HoldsAttempt || r.ForJob || (b.ReviewResult && r.Required > 1) || stateConflict(r, nil) != nil {
		return run.ErrAlone
	}
	raw, err := verdict{result: &b.ReviewResult, output: b.ReviewedOutput}.attemptOutput()
	if err != nil {
		return err
	}
	key := run.AttemptKey{Execution: r.Execution, Task: r.Target, Idx: r.TargetIdx}
	return s.engine.ReportTogether(ctx, key, r.Flow, r.Version, raw, func(ctx context.Context, tx *sqlx.Tx) error {
		now, v, _, err := judge(ctx, tx, p, id, b)
		if err != nil {
			return err
		}
		if v == nil || !now.HoldsAttempt || now.ForJob {
			return run.ErrAlone // no longer as it was read: the transaction of its own decides
		}
		return settle(ctx, tx, now, *v)
	})
}
