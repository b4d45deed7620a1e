package run

import (
	"fmt"

	"github.com/lib/pq"
)

// lineDraft is the line of steps ahead of a lone completion, written in the statement that records
// the completion (completeGroup), with the task claimed after it (next, "" for none; idx is the index
// of its attempt, once written).
type lineDraft struct {
	steps []stepAhead
	next  string
	key   planKey
	idx   int
}

// lineMade is what the statement wrote of a line: tasks made ready, attempts written, and the index of
// next's attempt.
type lineMade struct {
	Tasks    int `db:"line_tasks"`
	Attempts int `db:"line_attempts"`
	Next     int `db:"line_next"`
}

// draftLine is the line of steps ahead of a lone completion (lineOf), on the plan they ran on.
func draftLine(round []*completion) *lineDraft {
	if len(round) != 1 || len(round[0].ahead) == 0 {
		return nil
	}
	c := round[0]
	p := c.ahead[0].o.plan
	if p == nil || c.dec == nil || c.dec.key != p.key {
		return nil
	}
	line := lineOf(p, final{task: c.args.Task, completed: true, output: c.output, dec: c.dec}, c.ahead)
	if len(line) == 0 {
		return nil
	}
	return &lineDraft{steps: line, next: claimAfter(p, line[len(line)-1]), key: p.key}
}

// ready counts the tasks the line makes ready.
func (d *lineDraft) ready() int {
	if d.next != "" {
		return len(d.steps) + 1
	}
	return len(d.steps)
}

// sql is the WITH items that write the line, after completeGroup's (whose att they read: only when the
// attempt completed on the line's version), with their parameters appended to args, and the columns
// that tell what they wrote. The line's tasks, and next, become ready, each waiting on the one before
// alone, which no other transaction finishes, so none of them waits for this one's locks; the line's
// attempts are written completed with the input each ran on (a task's state moves from waiting through
// ready, as its state machine has it).
func (d *lineDraft) sql(args *[]any, lease float64) (with, made string) {
	names, outs := lineOutputs(d.steps)
	inputs, details := lineInputs(d.steps)
	ready := names
	if d.next != "" {
		ready = append(append([]string(nil), names...), d.next)
	}
	ph := func(v any) string {
		*args = append(*args, v)
		return fmt.Sprintf("$%d", len(*args))
	}
	with = `,
		ld AS (SELECT * FROM unnest(` + ph(pq.Array(names)) + `::text[], ` + ph(pq.Array(inputs)) + `::text[], ` +
		ph(pq.Array(outs)) + `::text[], ` + ph(pq.Array(details)) + `::text[]) AS ld (n, inp, o, dt)),
		lk AS (UPDATE execution_tasks k SET state = 'ready', waiting_on = 0, held = true, attempts = k.attempts + 1, updated_at = now()
			WHERE k.flow_execution_id = $1 AND k.task_name = ANY(` + ph(pq.Array(ready)) + `::text[])` +
		inNames("k.task_name", fmt.Sprintf("$%d", len(*args))) + ` AND k.state = 'waiting' AND k.waiting_on = 1
			  AND EXISTS (SELECT 1 FROM att WHERE att.attempt_status = 'completed' AND att.flow_id = ` + ph(d.key.flow) +
		` AND att.flow_version = ` + ph(d.key.version) + `)
			RETURNING k.task_name, k.attempts),
		la AS (INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input,
				output, detail, started_at, completed_at, timeout_at)
			SELECT att.organization_id, $1, ld.n, lk.attempts - 1, 'completed', ld.inp::jsonb, ld.o::jsonb, nullif(ld.dt, '')::jsonb,
				now(), now(), now() + make_interval(secs => ` + ph(lease) + `)
			FROM ld JOIN lk ON lk.task_name = ld.n, att
			ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING
			RETURNING 1)`
	made = `(SELECT count(*) FROM lk) AS line_tasks, (SELECT count(*) FROM la) AS line_attempts,
		coalesce((SELECT attempts - 1 FROM lk WHERE task_name = ` + ph(d.next) + `), 0) AS line_next`
	return with, made
}
