package reviews

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/run"
)

// verdict is how a review ends: with a result and the reviewed output, or, when an expired review
// fails its task, with cause.
type verdict struct {
	result *bool
	output map[string]any
	by     *uuid.UUID
	actor  string
	cause  error
	// own is the decider's assignment, completed with the verdict in the statement that decides the
	// review, and approvals the approvals the decision adds: what a completion would otherwise write in
	// statements of their own first.
	own       *uuid.UUID
	approvals int
}

// decide completes a review in tx: the task with its verdict, the assignments that gave none
// cancelled, and the attempt that waits for it finished through the engine in the same transaction,
// so the execution moves on exactly when the review's completion commits (or, when an edge after the
// review has a condition, the engine's job that evaluates it outside any transaction is queued then).
func (s *Service) decide(ctx context.Context, tx *sqlx.Tx, r reviewRow, v verdict) error {
	if err := settle(ctx, tx, r, v); err != nil {
		return err
	}
	if !r.HoldsAttempt {
		return labelJob(ctx, tx, r.Execution, r.ID, v.by)
	}
	key := run.AttemptKey{Execution: r.Execution, Task: r.Target, Idx: r.TargetIdx}
	if v.cause != nil {
		return s.engine.Report(ctx, tx, key, nil, v.cause)
	}
	raw, err := v.attemptOutput()
	if err != nil {
		return err
	}
	// The engine first, then the job's label: locks in the engine's order (package engine/state).
	if err := s.engine.Report(ctx, tx, key, raw, nil); err != nil {
		return err
	}
	if !r.ForJob {
		return nil // an /api execution: no job to label, and no statement to look for one
	}
	return labelJob(ctx, tx, r.Execution, r.ID, v.by)
}

// settle writes the review's own rows as the verdict leaves them, as settleAll does for many, in a
// statement of one row (see judge).
func settle(ctx context.Context, tx *sqlx.Tx, r reviewRow, v verdict) error {
	var out any
	if v.output != nil {
		out = v.output
	}
	reviewed, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		WITH own AS (UPDATE human_review_assignments SET status = 'completed', started_at = coalesce(started_at, now()),
		             completed_at = now(), review_result = $2, updated_at = now(), modified_by = $5 WHERE id = $6),
		a AS (UPDATE human_review_assignments SET status = 'cancelled', updated_at = now(), modified_by = $5
		      WHERE human_review_task_id = $1 AND status IN ('pending', 'in_progress') AND id IS DISTINCT FROM $6)
		UPDATE human_review_tasks SET status = 'completed', review_result = $2, reviewed_output = $3::jsonb,
			approvals = approvals + $7, completed_at = now(), completed_by = $4, updated_at = now(), modified_by = $5
		WHERE id = $1`, r.ID, v.result, string(reviewed), v.by, v.actor, v.own, v.approvals)
	return err
}

// settleAll writes the reviews' own rows as their verdicts leave them, in one statement whatever their
// number: each task with its verdict, its decider's own assignment (v.own) completed, and every other
// one still open cancelled (the two assignment updates never touch the same row). A NULL among the
// text arrays is sent as an empty string and read back as NULL.
func settleAll(ctx context.Context, tx *sqlx.Tx, js []judged) error {
	n := len(js)
	ids, results, reviewed, by, actors, own := make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n)
	approvals := make([]int64, n)
	for i, j := range js {
		v := j.v
		var out any
		if v.output != nil {
			out = v.output
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return err
		}
		ids[i], reviewed[i], actors[i], approvals[i] = j.r.ID.String(), string(raw), v.actor, int64(v.approvals)
		if v.result != nil {
			results[i] = strconv.FormatBool(*v.result)
		}
		if v.by != nil {
			by[i] = v.by.String()
		}
		if v.own != nil {
			own[i] = v.own.String()
		}
	}
	_, err := tx.ExecContext(ctx, `
		WITH v AS (SELECT id, nullif(result, '')::boolean AS result, reviewed::jsonb AS reviewed, nullif(by, '')::uuid AS by,
		             actor, nullif(own, '')::uuid AS own, approvals
		           FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
		             AS v (id, result, reviewed, by, actor, own, approvals)),
		own AS (UPDATE human_review_assignments a SET status = 'completed', started_at = coalesce(a.started_at, now()),
		          completed_at = now(), review_result = v.result, updated_at = now(), modified_by = v.actor FROM v WHERE a.id = v.own),
		a AS (UPDATE human_review_assignments a SET status = 'cancelled', updated_at = now(), modified_by = v.actor
		      FROM v WHERE a.human_review_task_id = v.id AND a.status IN ('pending', 'in_progress') AND a.id IS DISTINCT FROM v.own)
		UPDATE human_review_tasks r SET status = 'completed', review_result = v.result, reviewed_output = v.reviewed,
			approvals = r.approvals + v.approvals, completed_at = now(), completed_by = v.by, updated_at = now(), modified_by = v.actor
		FROM v WHERE r.id = v.id`, pq.Array(ids), pq.Array(results), pq.Array(reviewed), pq.Array(by), pq.Array(actors),
		pq.Array(own), pq.Array(approvals))
	return err
}

// attemptOutput is the output of the task that waited for the review: the reviewed object with the
// verdict beside its fields.
func (v verdict) attemptOutput() (json.RawMessage, error) {
	output := make(map[string]any, len(v.output)+1)
	for k, x := range v.output {
		output[k] = x
	}
	output["review_result"] = v.result
	return json.Marshal(output)
}

// asObject is the reviewed content as an object: an object as it is, any other value under "value"
// (the shape the task type's output schema documents).
func asObject(raw json.RawMessage) map[string]any {
	var v any
	_ = json.Unmarshal(raw, &v)
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{"value": v}
}
