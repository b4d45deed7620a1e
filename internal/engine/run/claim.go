package run

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// Claim is what an outside worker asks for: the oldest waiting attempt of an external task of Org,
// optionally of the named tasks, of one flow and of one queue (parameters.queue, "default" when unset),
// held for Lease seconds by Worker.
type Claim struct {
	Org    uuid.UUID
	Tasks  []string
	Flow   *uuid.UUID
	Queue  *string
	Lease  int
	Worker string
	// Seen is an SQL condition on the flow (aliased f) that the caller may see; it may use $7, which is
	// SeenArg when that is not nil.
	Seen    string
	SeenArg any
}

// claimQuery takes the oldest waiting attempt of an external task. An attempt waits while queued, or
// while running under a lease that expired (its worker vanished; SweepLost leaves external attempts to
// claims, so the claim takes the same attempt again rather than a new one). Only the current attempt of
// a task is offered (the execution_tasks join: attempts workers recorded on their own are theirs), and
// the task's type comes from the execution's flow version. SKIP LOCKED makes concurrent claims take
// different attempts, and locks only the attempt.
//
// The same statement moves a queued execution to running, as the engine does when its first attempt
// starts. The engine locks the execution after an attempt, so waiting for the execution here could
// deadlock with it: a locked execution is skipped, and its next recorded outcome moves it on to
// in_progress anyway. Parameters: organization, task names, flow, queue, lease seconds, worker, SeenArg.
func claimQuery(seen, columns string) string {
	return `WITH cand AS (
		SELECT t.id, x.flow_id, x.flow_version, d.parameters
		FROM task_executions t
		JOIN flow_executions x ON x.id = t.flow_execution_id
		JOIN flows f ON f.id = x.flow_id
		JOIN execution_tasks k ON k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name
			AND k.attempts = t.task_execution_idx + 1
		JOIN flow_versions v ON v.flow_id = x.flow_id AND v.version = x.flow_version
		CROSS JOIN LATERAL (SELECT coalesce(e->'parameters', '{}') AS parameters
			FROM jsonb_array_elements(v.definition->'tasks') e
			WHERE e->>'name' = t.task_name AND e->>'type' = '` + External + `' LIMIT 1) d
		WHERE t.organization_id = $1 AND x.organization_id = $1
		  AND (t.status = 'queued' OR (t.status = 'running' AND t.timeout_at < now()))
		  AND x.deleted_at IS NULL AND x.status IN ` + state.List(state.ExecActive) + `
		  AND ($2::text[] IS NULL OR t.task_name = ANY($2))
		  AND ($3::uuid IS NULL OR x.flow_id = $3)
		  AND ($4::text IS NULL OR coalesce(d.parameters->>'queue', 'default') = $4)
		  AND ` + seen + `
		ORDER BY t.created_at, t.id
		LIMIT 1
		FOR UPDATE OF t SKIP LOCKED),
	att AS (UPDATE task_executions t SET status = 'running', started_at = coalesce(t.started_at, now()),
		timeout_at = now() + make_interval(secs => $5), updated_at = now(), modified_by = $6
		FROM cand WHERE t.id = cand.id
		RETURNING t.*, cand.flow_id AS claim_flow, cand.flow_version AS claim_version, cand.parameters AS claim_parameters),
	x AS (UPDATE flow_executions SET status = 'running', started_at = coalesce(started_at, now()), updated_at = now()
		WHERE id = (SELECT id FROM flow_executions WHERE id = (SELECT flow_execution_id FROM att) AND status = 'queued'
			FOR UPDATE SKIP LOCKED))
	SELECT ` + columns + `, t.claim_flow AS flow_id, t.claim_version AS flow_version, t.claim_parameters AS parameters
	FROM att t`
}

// ClaimOutside takes an attempt for an outside worker under a lease, in tx (see claimQuery). It scans
// into.Columns (of a task_executions row aliased t) followed by flow_id, flow_version and parameters
// (the task's) into into.Dest, and reports false when no attempt waits.
func ClaimOutside(ctx context.Context, tx *sqlx.Tx, c Claim, into Into) (bool, error) {
	seen := c.Seen
	if seen == "" {
		seen = "true"
	}
	args := []any{c.Org, pq.Array(c.Tasks), c.Flow, c.Queue, c.Lease, c.Worker}
	if c.SeenArg != nil {
		args = append(args, c.SeenArg)
	}
	err := tx.GetContext(ctx, into.Dest, claimQuery(seen, into.Columns), args...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
