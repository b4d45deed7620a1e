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
	// decides (waiting); the statement reads them as they were before it, which is all it needs.
	if err := w.tx.SelectContext(ctx, &rows, `WITH u AS (UPDATE execution_tasks k SET waiting_on = k.waiting_on - d.n,
			held = k.held OR d.h, updated_at = now(),
			state = CASE WHEN k.waiting_on = d.n AND (k.held OR d.h) THEN 'ready' ELSE k.state END,
			attempts = k.attempts + CASE WHEN k.waiting_on = d.n AND (k.held OR d.h) THEN 1 ELSE 0 END
			FROM unnest($2::text[], $3::bigint[], $4::boolean[]) AS d (t, n, h)
			WHERE k.flow_execution_id = $1 AND k.task_name = d.t AND k.state = 'waiting'`+inNames("k.task_name", "$2")+`
			RETURNING k.task_name, k.held, k.waiting_on, k.attempts, k.state),
		r AS (SELECT task_name FROM u WHERE state = 'ready')
		SELECT p.task_name, coalesce(p.output, 'null') AS output, 0 AS kind, 0 AS attempts, false AS held
		FROM unnest($5::text[], $6::text[]) AS nd (t, n) JOIN execution_tasks p ON p.flow_execution_id = $1 AND p.task_name = nd.n
		WHERE p.state = 'completed' AND nd.t IN (SELECT task_name FROM r)`+inNames("p.task_name", "$6")+`
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
	return skipped, w.made(rows)
}
