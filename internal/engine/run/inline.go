package run

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// maxInline bounds the attempts one start runs in its own transaction after those run ahead.
const maxInline = 8

// outcome is the outcome Prepare ran ahead for first task n of execution exec on the version key, if any.
func (pre *Prepared) outcome(exec uuid.UUID, key planKey, n string) (outcome, bool) {
	if pre == nil || pre.exec != exec || pre.key != key {
		return outcome{}, false
	}
	o, ok := pre.ahead[n]
	return o, ok
}

// inline records, in the start's transaction, the outcomes of the first tasks run ahead (ahead, see
// Prepared), and then runs there the attempts claimed for this process whose executors only record
// (executors.Records: a human_review opening its review). A submission whose flow reshapes its input
// and then waits for a person so commits once, where it took a transaction for each task.
//
// It works under a savepoint: should anything fail, the transaction returns to the start as laid out,
// and every attempt runs as usual once it commits (the first tasks run ahead run again here).
func (e *Engine) inline(ctx context.Context, tx *sqlx.Tx, x Execution, ahead []string, b *batch) error {
	if len(ahead) == 0 && !e.recordsAny(ctx, b) {
		return nil
	}
	recorded, err := e.underSavepoint(ctx, tx, b, func() (map[int]bool, error) {
		return e.inlineSteps(ctx, tx, x, ahead, b)
	}, "running a start's first steps in its transaction failed; they run after it", x.ID)
	if err != nil || recorded {
		return err
	}
	// The first tasks run ahead are written running with no place here: they take one now, or run when
	// their lease ends (SweepLost), as an attempt of a process that died does.
	for _, n := range ahead {
		if e.local.take(x.Org) {
			b.runs = append(b.runs, localRun{args: taskArgs{Execution: x.ID, Task: n, Org: x.Org},
				claimed: claimed{org: x.Org, flow: x.Flow, version: x.Version, input: x.input(),
					vars: x.Pre.ahead[n].vars}, parent: trace.SpanContextFromContext(ctx)})
		}
	}
	return nil
}

// underSavepoint records, under a savepoint of tx, what work ran here in it: it returns which of b.runs
// that recorded, whose places are then given back and which leave b. Should work fail, it logs why
// (failed, for execution exec), returns tx to the savepoint and b to its runs before, and reports false:
// the attempts it would have recorded run after the commit as usual.
func (e *Engine) underSavepoint(ctx context.Context, tx *sqlx.Tx, b *batch, work func() (map[int]bool, error),
	failed string, exec uuid.UUID) (bool, error) {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT recorded_here`); err != nil {
		return false, err
	}
	laid := len(b.runs)
	done, err := work()
	if err == nil {
		kept := b.runs[:0:0]
		for i, r := range b.runs {
			if done[i] {
				e.local.release(r.org)
			} else {
				kept = append(kept, r)
			}
		}
		b.runs = kept
		return true, nil
	}
	if e.log != nil {
		e.log.Warn(failed, "execution", exec, "error", err)
	}
	if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT recorded_here`); err != nil {
		return false, err
	}
	for _, r := range b.runs[laid:] {
		e.local.release(r.org)
	}
	b.runs = b.runs[:laid]
	return false, nil
}

// inlineSteps records the outcomes run ahead and runs the attempts that only record; it returns which
// of b.runs it ran.
func (e *Engine) inlineSteps(ctx context.Context, tx *sqlx.Tx, x Execution, ahead []string, b *batch) (map[int]bool, error) {
	// The outcomes run ahead are completions, with their edges decided: they are recorded as a round of
	// completions is (completeGroup), whose statement also locks the attempts and reads the execution,
	// rather than one by one after a read of each (record).
	if len(ahead) > 0 {
		round := make([]*completion, len(ahead))
		for i, n := range ahead {
			o := x.Pre.ahead[n]
			round[i] = &completion{ctx: ctx, args: taskArgs{Execution: x.ID, Task: n, Org: x.Org}, output: o.output,
				detail: o.detail, dec: o.dec}
		}
		if err := e.completeGroup(ctx, tx, x.ID, round, nil, b); err != nil {
			return nil, err
		}
	}
	done := map[int]bool{}
	for i := 0; i < len(b.runs) && len(done) < maxInline; i++ {
		ran, err := e.recordHere(ctx, tx, b.runs[i], b)
		if err != nil {
			return nil, err
		}
		if ran {
			done[i] = true
		}
	}
	return done, nil
}

// recordsAny says whether an attempt claimed in b has an executor that only records.
func (e *Engine) recordsAny(ctx context.Context, b *batch) bool {
	for _, r := range b.runs {
		if p, err := e.plan(ctx, e.db, r.flow, r.version); err == nil && p.tasks[r.args.Task] != nil &&
			executors.KindOf(e.execs[p.tasks[r.args.Task].Type]) == executors.Records {
			return true
		}
	}
	return false
}

// recordHere runs attempt r in tx when its executor only records and it parks (what such an executor
// does), recording the outcome there; false leaves it to run after the transaction commits.
func (e *Engine) recordHere(ctx context.Context, tx *sqlx.Tx, r localRun, b *batch) (bool, error) {
	o, ctx, span, ok, err := e.runRecording(ctx, tx, r)
	if !ok || err != nil {
		return false, err
	}
	err = e.record(ctx, tx, r.args, o, b)
	endAttempt(span, o, err)
	return err == nil, err
}

// runRecording runs attempt r up to its outcome when its executor only records: ok when it parks, with
// the attempt's span left open for the caller to end once the outcome is recorded (endAttempt).
func (e *Engine) runRecording(ctx context.Context, tx *sqlx.Tx, r localRun) (outcome, context.Context, trace.Span, bool, error) {
	p, err := e.plan(ctx, tx, r.flow, r.version)
	if err != nil {
		return outcome{}, ctx, nil, false, err
	}
	task := p.tasks[r.args.Task]
	if task == nil || executors.KindOf(e.execs[task.Type]) != executors.Records {
		return outcome{}, ctx, nil, false, nil
	}
	var data any
	if len(r.input) > 0 {
		if err := json.Unmarshal(r.input, &data); err != nil {
			return outcome{}, ctx, nil, false, err
		}
	}
	ctx, span := e.startAttempt(ctx, r.args, task, r.claimed)
	o := outcome{task: task, plan: p, vars: r.vars}
	o.result, o.err = e.execs[task.Type].Run(ctx, executors.Input{Org: r.org, Execution: r.args.Execution, Task: *task,
		Idx: r.args.Idx, Data: data, Raw: r.input, Key: fmt.Sprintf("%s/%s/%d", r.args.Execution, r.args.Task, r.args.Idx),
		Vars: r.vars, Flow: r.flow, Version: r.version, Preds: p.preds[r.args.Task]})
	if o.err != nil || !o.result.Park {
		endAttempt(span, o, nil)
		return o, ctx, nil, false, nil
	}
	if o.result.Detail != nil {
		if o.detail, err = json.Marshal(o.result.Detail); err != nil {
			endAttempt(span, o, err)
			return o, ctx, nil, false, err
		}
	}
	return o, ctx, span, true, nil
}
