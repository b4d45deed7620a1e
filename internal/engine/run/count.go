package run

import (
	"context"

	"github.com/lib/pq"
)

// count lowers the counters of targets, each by its number of predecessors that finished (ns) and held
// when an edge to it held (hs), and decides those whose predecessors have now all finished: one with an
// edge to it holding becomes ready and gets its next attempt, queued with its input (w.ready); it
// returns the others, to be skipped.
//
// One statement does it all: it lowers the counters, marks ready the tasks they decide, and reads what
// those tasks' inputs and variables are made of (their predecessors' outputs, the tasks' outputs they
// name and the execution's input), only for the tasks it made ready. A step of a chain so sends one
// statement where it sent one to count and one to make ready.
func (w *walk) count(ctx context.Context, targets []string, ns []int64, hs []bool) ([]string, error) {
	if w.mem != nil {
		return w.mem.count(w, targets, ns, hs)
	}
	// What each target's input and variables would be made of, should it become ready.
	var forTask, name, wantInput []string
	for _, t := range targets {
		names, input := w.needed([]string{t})
		for _, n := range names {
			forTask, name = append(forTask, t), append(name, n)
		}
		if input {
			wantInput = append(wantInput, t)
		}
	}
	var rows []readyRow
	// The outputs read are the predecessors' (completed), never those of the rows the statement
	// decides (waiting), as the statement's snapshot has them. Those are all of them unless the
	// statement waited for a counter that a sibling's transaction held: then the siblings that committed
	// meanwhile are in the counter but not in the snapshot, which still has them not finished (kind 3);
	// fresh reads them again (see there).
	if err := w.tx.SelectContext(ctx, &rows, `WITH u AS (UPDATE execution_tasks k SET waiting_on = k.waiting_on - d.n,
			held = k.held OR d.h, updated_at = now(),
			state = CASE WHEN k.waiting_on = d.n AND (k.held OR d.h) THEN 'ready' ELSE k.state END,
			attempts = k.attempts + CASE WHEN k.waiting_on = d.n AND (k.held OR d.h) THEN 1 ELSE 0 END
			FROM unnest($2::text[], $3::bigint[], $4::boolean[]) AS d (t, n, h)
			WHERE k.flow_execution_id = $1 AND k.task_name = d.t AND k.state = 'waiting'`+inNames("k.task_name", "$2")+`
			RETURNING k.task_name, k.held, k.waiting_on, k.attempts, k.state),
		r AS (SELECT task_name FROM u WHERE state = 'ready')
		SELECT p.task_name, coalesce(p.output, 'null') AS output, CASE WHEN p.state = 'completed' THEN 0 ELSE 3 END AS kind,
			0 AS attempts, false AS held
		FROM unnest($5::text[], $6::text[]) AS nd (t, n) JOIN execution_tasks p ON p.flow_execution_id = $1 AND p.task_name = nd.n
		WHERE p.state IN ('completed', 'waiting', 'ready') AND nd.t IN (SELECT task_name FROM r)`+inNames("p.task_name", "$6")+`
		UNION ALL SELECT '', coalesce(input, '{}'), 1, 0, false FROM flow_executions
		WHERE id = $1 AND EXISTS (SELECT 1 FROM r WHERE task_name = ANY($7))
		UNION ALL SELECT task_name, 'null', 2, attempts, held FROM u WHERE waiting_on = 0`,
		w.exec, pq.Array(targets), pq.Array(ns), pq.Array(hs), pq.Array(forTask), pq.Array(name), pq.Array(wantInput)); err != nil {
		return nil, err
	}
	var skipped []string
	for _, r := range rows {
		if r.Kind == 2 && !r.Held {
			skipped = append(skipped, r.Name)
		}
	}
	rows, err := w.fresh(ctx, rows)
	if err != nil {
		return nil, err
	}
	return skipped, w.made(rows)
}

// fresh gives rows, read by a statement that made tasks ready, with the outputs read again when that
// statement's snapshot was older than the counters it moved: a predecessor of a task it made ready that
// the snapshot has not finished (kind 3) finished in a transaction that committed while the statement
// waited for the counter's row lock (every predecessor lowers the counter, so the one that brings it to
// zero comes after all of theirs). A new statement sees what they committed; without it the task's input
// would leave out their outputs.
func (w *walk) fresh(ctx context.Context, rows []readyRow) ([]readyRow, error) {
	preds := map[string]bool{}
	for _, r := range rows {
		if r.Kind == 2 && r.Held {
			for _, p := range w.p.preds[r.Name] {
				preds[p] = true
			}
		}
	}
	var names []string
	stale := false
	for _, r := range rows {
		if r.Kind == 0 || r.Kind == 3 {
			names = append(names, r.Name)
			stale = stale || (r.Kind == 3 && preds[r.Name])
		}
	}
	if !stale {
		return rows, nil
	}
	var again []readyRow
	if err := w.tx.SelectContext(ctx, &again, `SELECT task_name, coalesce(output, 'null') AS output, 0 AS kind, 0 AS attempts,
		false AS held FROM execution_tasks WHERE flow_execution_id = $1 AND task_name = ANY($2) AND state = 'completed'`,
		w.exec, pq.Array(names)); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Kind != 0 && r.Kind != 3 {
			again = append(again, r)
		}
	}
	return again, nil
}
