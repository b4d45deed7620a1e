package run

import (
	"context"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// A round of a chain going on — a lone completion run here, the line of steps run ahead of it, and the
// task after the line claimed here (draftLine, claimAfter) — writes what the transaction of
// recordGroup would, in the same order and under the same locks, but in one call of the database
// function engine_chain_round (db/migrations/00104_chain_round.sql), outside an explicit transaction:
// one round trip instead of four (begin, two statements, commit). Every check the transaction makes
// between its statements is made in the function, which raises instead, so that a round that finds
// the execution otherwise than it expects writes nothing; its completion is then recorded on its own,
// as after a failed transaction (finishCompleted).

// chainRound is what engine_chain_round wrote: how the attempt ended (nil: it was not running any
// more), and the index of the next task's attempt and whether it was written.
type chainRound struct {
	Attempt *string `db:"attempt_status"`
	NextIdx *int    `db:"next_idx"`
	Written *bool   `db:"next_written"`
}

// recordChainRound records round, with the line of steps ahead of it (draft, from draftLine), in one
// call of engine_chain_round when it is a chain's round going on (see above) and this process has a
// place for the task after the line; false when it is not, and the round is recorded in a transaction
// (recordGroup).
func (e *Engine) recordChainRound(ctx context.Context, exec uuid.UUID, round []*completion, draft *lineDraft) (bool, error) {
	if e.chainInTx || draft == nil || round[0].job != nil || round[0].args.Org == uuid.Nil {
		return false, nil
	}
	c := round[0]
	if draft.next == "" || len(draft.steps) != len(c.ahead) {
		return false, nil // the steps not in the line are recorded in rounds of the transaction's (recordSteps)
	}
	p := c.ahead[0].o.plan
	if p.tasks[draft.next].Type == External || !e.local.take(c.args.Org) {
		return false, nil // its attempt goes to an outside worker or to River, with a job in the transaction
	}
	line := draft.steps
	names, outs := lineOutputs(line)
	inputs, details := lineInputs(line)
	var r chainRound
	err := e.db.GetContext(ctx, &r, `SELECT attempt_status, next_idx, next_written
		FROM engine_chain_round($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		exec, c.args.Task, c.args.Idx, string(c.output), string(c.detail), draft.key.flow, draft.key.version,
		pq.Array(names), pq.Array(inputs), pq.Array(outs), pq.Array(details), draft.next, e.lease.Seconds())
	if err != nil || r.Attempt == nil || *r.Attempt != string(state.AttemptCompleted) || r.Written == nil || !*r.Written {
		// Nothing was written (an error), the attempt had ended or was cancelled, or the next attempt
		// existed already (a delivery before this one wrote it): no attempt is claimed here.
		e.local.release(c.args.Org)
		e.dropBeside(exec, nil)
		return true, err
	}
	c.recorded = len(line)
	e.chainRounds.Add(1)
	b := &batch{flow: draft.key.flow, version: draft.key.version}
	b.runs = append(b.runs, runHere(ctx, c.args.Org, exec, attempt{task: draft.next, idx: *r.NextIdx, input: line[len(line)-1].o.output}, b))
	b.run(e)
	return true, nil
}
