package run

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// ErrAlone is ReportTogether's answer when the completion was not recorded with others: nothing of it,
// nor of what its caller writes with it, was written, and the caller records it in a transaction of its
// own (Report).
var ErrAlone = errors.New("run: the completion is to be recorded in a transaction of its own")

// Writer writes, in a round's transaction and before the engine's statements, what the completions
// handed to ReportTogether with it must commit with: one call for all of the round's items, in the
// order of their attempts (task name, then index), the order in which the round locks their rows.
// An error fails the round, and each of its completions is then recorded on its own.
type Writer interface {
	Write(ctx context.Context, tx *sqlx.Tx, items []any) error
}

// ReportTogether completes a running attempt that waits for the outside, as Report does, together with
// the other completions of its execution that arrive while a transaction of its completions is under way
// (see groups). Completed one transaction each, the reviews a join waits for queue on the join's counter
// and the execution's row, each holding them through its commit; together they commit a round at a time.
//
// w writes item (a review's own rows, locked and checked there) with the round's other items of w.
// flow and version are those the caller read of the execution: the completion's edges are decided on
// them, and a round that finds the execution on another version is not recorded so. ErrAlone when the
// edges out have conditions (Report hands those to a job) or the round was not recorded; then nothing of
// it was written. Any other error is from reading the flow's version.
//
// The completion is recorded even when ctx is cancelled once it has been handed over: its round may hold
// other callers' completions, and a request that went away would otherwise leave them recorded alone.
func (e *Engine) ReportTogether(ctx context.Context, k AttemptKey, flow uuid.UUID, version int, output json.RawMessage,
	w Writer, item any) error {
	p, err := e.plan(ctx, e.db, flow, version)
	if err != nil {
		return err
	}
	if p.tasks[k.Task] == nil || p.conditional(k.Task) {
		return ErrAlone
	}
	if output == nil {
		output = json.RawMessage(`null`)
	}
	dec, err := e.decidePlain(p, produced{task: k.Task, typ: p.typeOf(k.Task), output: output})
	if err != nil {
		return ErrAlone
	}
	ctx = context.WithoutCancel(ctx)
	return e.together(ctx, &completion{ctx: ctx, args: taskArgs{Execution: k.Execution, Task: k.Task, Idx: k.Idx},
		output: output, dec: dec, w: w, item: item, err: make(chan error, 1)})
}

// writeAlongside sorts the round by attempt and has each Writer of its completions write their items.
func writeAlongside(ctx context.Context, tx *sqlx.Tx, round []*completion) error {
	byAttempt(round)
	var writers []Writer
	items := map[Writer][]any{}
	for _, r := range round {
		if r.w == nil {
			continue
		}
		if _, ok := items[r.w]; !ok {
			writers = append(writers, r.w)
		}
		items[r.w] = append(items[r.w], r.item)
	}
	for _, w := range writers {
		if err := w.Write(ctx, tx, items[w]); err != nil {
			return err
		}
	}
	return nil
}
