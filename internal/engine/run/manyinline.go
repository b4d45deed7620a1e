package run

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"go.opentelemetry.io/otel/trace"
)

// parkedHere is an attempt of CreateMany's that ran in its transaction and parks: execution i of the
// batch, its claimed run j, and what it came to.
type parkedHere struct {
	i, j int
	o    outcome
	ctx  context.Context
	span trace.Span
}

// inlineMany is inline for the executions CreateMany laid out. Those whose first outcomes are still to be
// recorded in the database (walkAhead left them) take inline's path, one by one. For the others, the
// attempts claimed here whose executors only record run (which writes nothing), and then, under one
// savepoint, what they write goes in together where their executors allow it (executors.Together: the
// reviews of a batch are one statement) and they park with one statement. Should that fail, the
// transaction returns to the savepoint and those attempts run as usual once it commits.
func (e *Engine) inlineMany(ctx context.Context, tx *sqlx.Tx, fs []fresh, sts []*Started) error {
	var done []parkedHere
	for i, f := range fs {
		if f.mem == nil && len(f.l.ahead) > 0 {
			if err := e.inline(ctx, tx, f.x, f.l.ahead, sts[i].b); err != nil {
				return err
			}
			continue
		}
		for j := 0; j < len(sts[i].b.runs) && j < maxInline; j++ {
			o, actx, span, ok, err := e.runRecording(ctx, tx, sts[i].b.runs[j])
			if err != nil {
				ended(done, err)
				return nil // nothing written: they all run after the commit
			}
			if ok {
				done = append(done, parkedHere{i: i, j: j, o: o, ctx: actx, span: span})
			}
		}
	}
	if len(done) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SAVEPOINT inline`); err != nil {
		ended(done, err)
		return err
	}
	if err := e.parkMany(ctx, tx, sts, done); err != nil {
		ended(done, err)
		if e.log != nil {
			e.log.Warn("running the first steps of executions started together in their transaction failed; they run after it", "error", err)
		}
		_, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT inline`)
		return err
	}
	ended(done, nil)
	ran := make([]map[int]bool, len(fs))
	for _, d := range done {
		if ran[d.i] == nil {
			ran[d.i] = map[int]bool{}
		}
		ran[d.i][d.j] = true
	}
	for i, st := range sts {
		kept := st.b.runs[:0:0]
		for j, r := range st.b.runs {
			if ran[i][j] {
				e.local.release(r.org)
			} else {
				kept = append(kept, r)
			}
		}
		st.b.runs = kept
	}
	return nil
}

// ended ends the spans of the attempts in done.
func ended(done []parkedHere, err error) {
	for _, d := range done {
		endAttempt(d.span, d.o, err)
	}
}

// parkMany writes what the attempts in done write (their executors' InTx, together where they allow it)
// and parks them, as record does each one's: running with no deadline, and their executions awaiting
// input (a queued one passes through running, as park moves it). The rows are found through the
// executions' ids (= ANY), which the planner takes to their indexes whatever it thinks of the batch.
func (e *Engine) parkMany(ctx context.Context, tx *sqlx.Tx, sts []*Started, done []parkedHere) error {
	var keys []any
	items := map[any][]any{}
	writes := map[any]func(context.Context, *sqlx.Tx, []any) error{}
	execs, tasks, idxs := make([]string, len(done)), make([]string, len(done)), make([]int64, len(done))
	var awaiting []string
	for n, d := range done {
		r := sts[d.i].b.runs[d.j]
		execs[n], tasks[n], idxs[n] = r.args.Execution.String(), r.args.Task, int64(r.args.Idx)
		if d.o.result.AwaitingInput {
			awaiting = append(awaiting, r.args.Execution.String())
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
	for _, k := range keys {
		if err := writes[k](ctx, tx, items[k]); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `
		WITH d AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS d (x, n, i)),
		att AS (UPDATE task_executions t SET timeout_at = NULL, updated_at = now() FROM d
			WHERE t.flow_execution_id = ANY($1::uuid[]) AND t.flow_execution_id = d.x AND t.task_name = d.n
			  AND t.task_execution_idx = d.i)
		UPDATE flow_executions x SET updated_at = now(), started_at = coalesce(x.started_at, now()),
			status = CASE WHEN x.id = ANY($4::uuid[]) THEN 'awaiting_input' ELSE 'running' END
		WHERE x.id = ANY($1::uuid[]) AND (x.id = ANY($4::uuid[]) OR x.status = 'queued')`,
		pq.Array(execs), pq.Array(tasks), pq.Array(idxs), pq.Array(awaiting))
	return err
}
