package run

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"go.opentelemetry.io/otel/trace"
)

// parkedHere is an attempt of CreateMany's that ran before its rows were written and parks (see
// recordAhead): what it came to, and its span, ended once what it writes is written.
type parkedHere struct {
	o    outcome
	ctx  context.Context
	span trace.Span
}

// ended ends the spans of the attempts fs ran ahead of their rows.
func ended(fs []fresh, err error) {
	for _, f := range fs {
		for _, d := range f.ran {
			endAttempt(d.span, d.o, err)
		}
	}
}

// inlineMany is inline for the executions CreateMany laid out. Those whose first outcomes are still to be
// recorded in the database (walkAhead left them) take inline's path, one by one. The others' attempts
// that only record were run before their rows were written, and written parked (recordAhead): under one
// savepoint, what they write goes in now, together where their executors allow it (executors.Together:
// the reviews of a batch are one statement). Should that fail, the transaction returns to the savepoint,
// the attempts and their executions are put back as they were laid out, and the attempts run as usual
// once it commits.
func (e *Engine) inlineMany(ctx context.Context, tx *sqlx.Tx, fs []fresh, sts []*Started) error {
	some := false
	for i, f := range fs {
		if f.mem == nil && len(f.l.ahead) > 0 {
			if err := e.inline(ctx, tx, f.x, f.l.ahead, sts[i].b); err != nil {
				ended(fs, err)
				return err
			}
		}
		some = some || len(f.ran) > 0
	}
	if !some {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SAVEPOINT inline`); err != nil {
		ended(fs, err)
		return err
	}
	if err := e.writeTogether(ctx, tx, fs); err != nil {
		ended(fs, err)
		if e.log != nil {
			e.log.Warn("running the first steps of executions started together in their transaction failed; they run after it", "error", err)
		}
		if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT inline`); err != nil {
			return err
		}
		return e.unpark(ctx, tx, fs)
	}
	ended(fs, nil)
	for i, f := range fs {
		kept := sts[i].b.runs[:0:0]
		for _, r := range sts[i].b.runs {
			if _, ok := f.ran[r.args.Task]; ok {
				e.local.release(r.org)
			} else {
				kept = append(kept, r)
			}
		}
		sts[i].b.runs = kept
	}
	return nil
}

// writeTogether writes what the attempts fs ran ahead write: each one's InTx, or, where their executors
// allow it, one Together.Write for all of those that share its key.
func (e *Engine) writeTogether(ctx context.Context, tx *sqlx.Tx, fs []fresh) error {
	var keys []any
	items := map[any][]any{}
	writes := map[any]func(context.Context, *sqlx.Tx, []any) error{}
	for _, f := range fs {
		for _, a := range f.atts {
			d, ok := f.ran[a.task]
			if !ok {
				continue
			}
			switch t := d.o.result.Together; {
			case t != nil:
				if _, ok := items[t.Key]; !ok {
					keys = append(keys, t.Key)
					writes[t.Key] = t.Write
				}
				items[t.Key] = append(items[t.Key], t.Item)
			case d.o.result.InTx != nil:
				if err := d.o.result.InTx(d.ctx, tx); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range keys {
		if err := writes[k](ctx, tx, items[k]); err != nil {
			return err
		}
	}
	return nil
}

// unpark puts the attempts fs ran ahead, and their executions, back as the start lays them out:
// running under this process's lease, and the executions in progress (their first round walked) or
// queued. The rows are found through the executions' ids (= ANY), which the planner takes to their
// indexes whatever it thinks of the batch.
func (e *Engine) unpark(ctx context.Context, tx *sqlx.Tx, fs []fresh) error {
	var execs, tasks, walked []string
	for _, f := range fs {
		for task := range f.ran {
			execs, tasks = append(execs, f.x.ID.String()), append(tasks, task)
		}
		if len(f.ran) > 0 && f.mem != nil {
			walked = append(walked, f.x.ID.String())
		}
	}
	_, err := tx.ExecContext(ctx, `
		WITH att AS (UPDATE task_executions t SET timeout_at = now() + make_interval(secs => $3), updated_at = now()
			FROM unnest($1::uuid[], $2::text[]) AS d (x, n)
			WHERE t.flow_execution_id = ANY($1::uuid[]) AND t.flow_execution_id = d.x AND t.task_name = d.n AND t.status = 'running')
		UPDATE flow_executions x SET updated_at = now(),
			status = CASE WHEN x.id = ANY($4::uuid[]) THEN 'in_progress' ELSE 'queued' END,
			started_at = CASE WHEN x.id = ANY($4::uuid[]) THEN x.started_at END
		WHERE x.id = ANY($1::uuid[])`, pq.Array(execs), pq.Array(tasks), e.lease.Seconds(), pq.Array(walked))
	return err
}
