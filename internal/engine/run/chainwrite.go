package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// A chain's steps run ahead of a completion's transaction (stepsAhead) are a line: each the only
// successor of the task before, with that task's output as its whole input. What recording them a round
// of the walk at a time would write is known before the transaction asks: each task becomes ready, gets
// its next attempt with that input, completes with its output, and leaves the count of tasks. So the
// statement that records the completion also makes the line's tasks ready and writes their attempts
// (lineDraft), and the next completes them and counts them, where the walk took five statements a step.
// What the last task's finishing decides is known too when it makes ready its only successor, with
// nothing else upstream (a chain going on): the first statement makes that task ready, and the second
// queues its attempt (claimAfter). Otherwise the last task's finishing is walked in the database, where
// what it decides may be shared with other tasks.

// advanceLine moves the execution on from the round's completed attempts (finished), as advance does,
// but through the line of steps ahead of a lone completion when the round's statement wrote one
// (draft). A line that found the execution otherwise than it expects failed the transaction, whose
// completions are then recorded one by one (finishCompleted), and its steps run after it as any
// attempt does.
func (e *Engine) advanceLine(ctx context.Context, tx *sqlx.Tx, x execRow, p *plan, exec uuid.UUID, round []*completion,
	finished []final, draft *lineDraft, b *batch) error {
	if draft == nil {
		return e.advance(ctx, tx, x, p, exec, finished, b)
	}
	line := draft.steps
	round[0].recorded = len(line)
	last := line[len(line)-1]
	if draft.next == "" {
		if err := completeLine(ctx, tx, exec, line); err != nil {
			return err
		}
		return e.advanceFrom(ctx, tx, x, p, exec, []final{{task: last.task, completed: true, output: last.o.output, dec: last.o.dec}},
			len(line), b)
	}
	// The line's tasks are completed, and the completion and the line counted, in the statement that
	// queues next: the first statement made them ready under this transaction's locks, so the
	// statement finds them as it left them.
	names, outs := lineOutputs(line)
	n, err := e.enqueueWith(ctx, tx, cte{sql: lineCompleted("$2", "$8", "$9") + ", " + counted("$2", "$10"),
		args: []any{pq.Array(names), pq.Array(outs), len(line) + 1}, counts: true}, x.Org, exec,
		[]attempt{{task: draft.next, idx: draft.idx, input: last.o.output, external: p.tasks[draft.next].Type == External}}, b)
	if err != nil {
		return err
	}
	return e.settled(ctx, tx, p, exec, n)
}

// claimAfter is the task that the line's last step s alone makes ready, when the line's first
// statement can make it ready as the walk would and the statement that completes the line can queue
// its attempt: the only successor of s, with the edge to it held, s alone upstream of it, and an input
// that is s's output as the database hands it on (plainJSON) with no variables. "" when there is none.
func claimAfter(p *plan, s stepAhead) string {
	succ := p.succ[s.task]
	if len(succ) != 1 || s.o.dec == nil || len(s.o.dec.held) != 1 || !s.o.dec.held[0] || !plainJSON(s.o.output) {
		return ""
	}
	next := succ[0].target
	if _, reads := p.needs[next]; reads || len(p.preds[next]) != 1 || p.tasks[next] == nil {
		return ""
	}
	return next
}

// lineOf is the line of the steps run ahead after the completed task f that can be written at once: from
// the first, for as long as the task before each has no successor but it, with the edge to it held (so
// that its finishing decides nothing else), and the step ran on what the database hands on: a text
// jsonb keeps as written (plainJSON), the first step's being f's output.
func lineOf(p *plan, f final, ahead []stepAhead) []stepAhead {
	before, dec := f.task, f.dec
	for i, s := range ahead {
		ranOn := plainJSON(s.input) && (i > 0 || sameJSON(f.output, s.input))
		if len(p.succ[before]) != 1 || p.succ[before][0].target != s.task || dec == nil || len(dec.held) != 1 || !dec.held[0] ||
			!ranOn || s.o.dec == nil || s.o.dec.key != p.key {
			return ahead[:i]
		}
		before, dec = s.task, s.o.dec
	}
	return ahead
}

// lineOutputs are the names of the line's tasks and their outputs, as text.
func lineOutputs(line []stepAhead) (names, outs []string) {
	names, outs = make([]string, len(line)), make([]string, len(line))
	for i, s := range line {
		names[i], outs[i] = s.task, string(s.o.output)
	}
	return names, outs
}

// lineInputs are the inputs the line's steps ran on and the details they recorded, as text.
func lineInputs(line []stepAhead) (inputs, details []string) {
	inputs, details = make([]string, len(line)), make([]string, len(line))
	for i, s := range line {
		inputs[i], details[i] = string(s.input), string(s.o.detail)
	}
	return inputs, details
}

// lineCompleted is the WITH item l that completes the line's tasks (names, outputs: placeholders of
// execution exec), made ready by the completion's statement (lineDraft), with their outputs.
func lineCompleted(exec, names, outs string) string {
	return `l AS (UPDATE execution_tasks k SET state = 'completed', output = d.o::jsonb, updated_at = now()
		FROM unnest(` + names + `::text[], ` + outs + `::text[]) AS d (n, o)
		WHERE k.flow_execution_id = ` + exec + ` AND k.task_name = d.n` + inNames("k.task_name", names) + ` AND k.state = 'ready'
		RETURNING 1)`
}

// completeLine completes the line's tasks in a statement of its own, when no task is queued after it.
func completeLine(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID, line []stepAhead) error {
	names, outs := lineOutputs(line)
	var completed int
	if err := tx.GetContext(ctx, &completed, `WITH `+lineCompleted("$1", "$2", "$3")+` SELECT count(*) FROM l`,
		exec, pq.Array(names), pq.Array(outs)); err != nil {
		return err
	}
	if completed != len(line) {
		return fmt.Errorf("run: a line of %d steps completed %d tasks", len(line), completed)
	}
	return nil
}

// plainNumber is a JSON number as jsonb writes it back: no exponent (a minus zero is told apart).
var plainNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// minusZero is a negative number whose digits are all zeros, which jsonb writes without its sign.
var minusZero = regexp.MustCompile(`^-0(\.0+)?$`)

// plainJSON is whether a JSON text's numbers are all written as jsonb writes them back, so that a step
// that ran on it ran on what the database hands on: the keys' order and the strings' escapes do not
// reach a program (gojq keeps an object's keys sorted, and a string's value is what it reads).
func plainJSON(text []byte) bool {
	if !json.Valid(text) {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return errors.Is(err, io.EOF)
		}
		if n, ok := tok.(json.Number); ok && (!plainNumber.MatchString(string(n)) || minusZero.MatchString(string(n))) {
			return false
		}
	}
}
