package taskexecutions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// defaultLease is the lease of a claim that names none (the contract's default).
const defaultLease = 60

// claimedRow is the attempt a claim took, with what the worker needs of its flow version.
type claimedRow struct {
	row
	Flow       uuid.UUID       `db:"flow_id"`
	Version    int             `db:"flow_version"`
	Parameters json.RawMessage `db:"parameters"`
}

// claimQuery takes the oldest waiting attempt of an external task. An attempt waits while queued, or
// while running under a lease that expired (its worker vanished; the engine's sweep does not take such
// attempts yet, so the claim does, and takes the same attempt again rather than a new one). Only the
// current attempt of a task of an execution that runs on the engine is offered (the execution_tasks
// join: attempts that workers recorded on their own are theirs), and the task's type comes from the
// execution's flow version. SKIP LOCKED makes concurrent claims take different attempts, and locks
// only the attempt: the execution's row is the engine's to lock first. Parameters: organization,
// task names, flow, queue, lease seconds, worker, and the user for the flows rule (see flows.SeenBy).
func claimQuery(p *auth.Principal) string {
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
			WHERE e->>'name' = t.task_name AND e->>'type' = '` + run.External + `' LIMIT 1) d
		WHERE t.organization_id = $1 AND x.organization_id = $1
		  AND (t.status = 'queued' OR (t.status = 'running' AND t.timeout_at < now()))
		  AND x.deleted_at IS NULL AND x.status IN ('queued', 'running', 'in_progress', 'awaiting_input')
		  AND ($2::text[] IS NULL OR t.task_name = ANY($2))
		  AND ($3::uuid IS NULL OR x.flow_id = $3)
		  AND ($4::text IS NULL OR coalesce(d.parameters->>'queue', 'default') = $4)
		  AND ` + flows.SeenBy(p, "$7") + `
		ORDER BY t.created_at, t.id
		LIMIT 1
		FOR UPDATE OF t SKIP LOCKED)
	UPDATE task_executions t SET status = 'running', started_at = coalesce(t.started_at, now()),
		timeout_at = now() + make_interval(secs => $5), updated_at = now(), modified_by = $6
	FROM cand WHERE t.id = cand.id
	RETURNING ` + columns + `, cand.flow_id, cand.flow_version, cand.parameters`
}

// ClaimTaskExecution takes an attempt of an external task for an outside worker, under a lease.
func (s *Service) ClaimTaskExecution(ctx context.Context, req platformapi.ClaimTaskExecutionRequestObject) (platformapi.ClaimTaskExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	lease := defaultLease
	if b.LeaseSeconds != nil {
		lease = *b.LeaseSeconds
	}
	var names []string
	if b.TaskNames != nil {
		names = *b.TaskNames
	}
	args := []any{p.OrganizationID, pq.Array(names), b.FlowId, b.Queue, lease, b.Worker}
	if !flows.Admin(p) {
		args = append(args, p.UserID)
	}
	var c claimedRow
	found := true
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &c, claimQuery(p), args...)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		return markRunning(ctx, tx, c.Execution)
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return platformapi.ClaimTaskExecution204Response{}, nil
	}
	api, err := withTags(ctx, s.db, c.Execution, []row{c.row})
	if err != nil {
		return nil, err
	}
	out := platformapi.ClaimedTaskExecution{TaskExecution: api[0], FlowId: c.Flow, FlowVersion: c.Version,
		TaskType: run.External, Parameters: map[string]any{}}
	if c.TimeoutAt != nil {
		out.LeaseExpiresAt = *c.TimeoutAt
	} else {
		out.LeaseExpiresAt = time.Now().Add(time.Duration(lease) * time.Second)
	}
	if err := json.Unmarshal(c.Parameters, &out.Parameters); err != nil || out.Parameters == nil {
		out.Parameters = map[string]any{}
	}
	return platformapi.ClaimTaskExecution200JSONResponse(out), nil
}

// markRunning moves a queued execution to running, as the engine does when it starts its first attempt.
// The claim holds an attempt's lock and the engine takes the execution's lock before an attempt's, so
// waiting for the execution here could deadlock with it: a locked execution is left as it is, and its
// next recorded outcome moves it on to in_progress anyway.
func markRunning(ctx context.Context, tx *sqlx.Tx, exec uuid.UUID) error {
	_, err := tx.ExecContext(ctx, `UPDATE flow_executions SET status = 'running', started_at = coalesce(started_at, now()),
		updated_at = now() WHERE id = (SELECT id FROM flow_executions WHERE id = $1 AND status = 'queued'
		FOR UPDATE SKIP LOCKED)`, exec)
	return err
}
