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

// ReportTogether completes a running attempt that waits for the outside, as Report does, together with
// the other completions of its execution that arrive while a transaction of its completions is under way
// (see groups). Completed one transaction each, the reviews a join waits for queue on the join's counter
// and the execution's row, each holding them through its commit; together they commit a round at a time.
//
// in writes, in the round's transaction and before the engine's statements, what must commit with the
// completion (a review's own rows, locked and checked there); an error from it fails the round, and each
// completion of the round is then recorded on its own. flow and version are those the caller read of the
// execution: the completion's edges are decided on them, and a round that finds the execution on another
// version is not recorded so. ErrAlone when the edges out have conditions (Report hands those to a job) or
// the round was not recorded; any other error is from reading the flow's version.
//
// The completion is recorded even when ctx is cancelled once it has been handed over: its round may hold
// other callers' completions, and a request that went away would otherwise leave them recorded alone.
func (e *Engine) ReportTogether(ctx context.Context, k AttemptKey, flow uuid.UUID, version int, output json.RawMessage,
	in func(context.Context, *sqlx.Tx) error) error {
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
		output: output, dec: dec, in: in, err: make(chan error, 1)})
}
