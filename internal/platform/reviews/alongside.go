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
// commits at a time, and its reviews are judged and written together (rounds).
//
// The review is read first without a lock, to know the attempt and the flow's version. run.ErrAlone
// when the completion is not one of these, or its round was not recorded (one of the round's reviews was
// refused, say): nothing of it was written, and the caller completes it in a transaction of its own,
// which answers whatever refused it.
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
	return s.engine.ReportTogether(ctx, key, r.Flow, r.Version, raw, rounds{}, completion{p: p, id: id, b: b})
}

// rounds writes the reviews of a round of completions handed to the engine by completeAlongside
// (run.Writer): judged under their locks as each would be in a transaction of its own (judgeAll), and
// written together (settleAll), in three statements whatever their number; a round of one, with the
// statements of a lone completion (judge, settle). A completion that no longer decides its review, or
// whose review no longer holds an /api attempt, fails the round with run.ErrAlone, as any refusal does:
// each is then completed on its own.
type rounds struct{}

func (rounds) Write(ctx context.Context, tx *sqlx.Tx, items []any) error {
	cs := make([]completion, len(items))
	for i, it := range items {
		cs[i] = it.(completion)
	}
	var js []judged
	if len(cs) == 1 {
		j, err := judge(ctx, tx, cs[0].p, cs[0].id, cs[0].b)
		js = append(js, j)
		if err != nil {
			return err
		}
	} else {
		var err error
		if js, err = judgeAll(ctx, tx, cs); err != nil {
			return err
		}
	}
	for _, j := range js {
		if j.v == nil || !j.r.HoldsAttempt || j.r.ForJob {
			return run.ErrAlone
		}
	}
	if len(js) == 1 {
		return settle(ctx, tx, js[0].r, *js[0].v)
	}
	return settleAll(ctx, tx, js)
}
