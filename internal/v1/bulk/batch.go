package bulk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Operation types, as bulk_operations.type stores them.
const (
	TypeCancel = "CANCEL_JOBS"
	TypeDelete = "DELETE_JOBS"
	TypeRerun  = "RERUN_JOBS"
)

// window is one batch of a selection: the matching jobs with after < id <= upTo, the first limit of
// them in id order. The request path runs one window over everything; the worker walks the selection
// window by window, each in its own transaction.
type window struct {
	After, UpTo int64
	Limit       int
}

// result is what one batch did: Done jobs changed out of Seen selected, the highest selected id
// being Last (the next window starts after it).
type result struct {
	Done int64 `db:"done"`
	Seen int   `db:"seen"`
	Last int64 `db:"last"`
}

// more reports whether the selection may go on past this batch.
func (r result) more(w window) bool { return r.Seen >= w.Limit }

// batchCTE selects and locks the batch. Locking in id order makes concurrent operations on one app
// wait for each other instead of deadlocking, and re-reads each row as last committed, so the status
// a history row records as the previous one is the real one. The fixed arguments are $1 app,
// $2 organization, $3 after, $4 up to, $5 limit.
func batchCTE(cond, filterSQL string) string {
	return `batch AS (
		SELECT ` + dbx.CustomPlan + ` j.app_id, j.id, j.status, j.flow_execution_id FROM jobs j
		WHERE j.app_id = $1 AND j.organization_id = $2 AND j.id > $3 AND j.id <= $4` + cond + `
		  AND (` + filterSQL + `)
		ORDER BY j.id LIMIT $5
		FOR UPDATE OF j)`
}

// The statements below join the batch's jobs by both columns of their key taken from the batch (the
// batch is materialized, as it locks its rows): with j.app_id = $1 instead, a planner that takes the app
// for a small one (statistics behind a new, fast-growing app) scans all of the app's jobs for each row
// of the batch (50,000 jobs of a new app: 50 million comparisons a batch).
const batchResult = `
	SELECT (SELECT count(*) FROM changed) AS done, (SELECT count(*) FROM batch) AS seen,
	       coalesce((SELECT max(id) FROM batch), $3) AS last`

// cancelBatch cancels the batch's unfinished jobs: status CANCELED, processing state ERROR, labeling
// lock released (their executions were stopped first, see haltExecutions), one STATUS_CHANGED history
// row each. completed_at stays null: the
// contract defines it as the moment a job became COMPLETED.
func cancelBatch(ctx context.Context, tx *sqlx.Tx, t target, w window, a actor, details []byte) (result, error) {
	fixed := []any{t.App, t.Org, w.After, w.UpTo, w.Limit, a.Username, nullJSON(details)}
	where, err := t.compile(len(fixed))
	if err != nil {
		return result{}, err
	}
	q := `WITH ` + batchCTE(scope(TypeCancel), where.SQL) + `,
	changed AS (
		UPDATE jobs j SET status = 'CANCELED', processing_state = 'ERROR', assigned_to = NULL,
		       lock_expires_at = NULL, updated_at = now()
		FROM batch b WHERE j.app_id = b.app_id AND j.id = b.id AND j.status IN ` + unfinishedJobs + `
		RETURNING j.id, b.status),
	history AS (
		INSERT INTO job_history (job_id, app_id, organization_id, event, actor, from_status, to_status, details)
		SELECT c.id, $1, $2, 'STATUS_CHANGED', $6, c.status, 'CANCELED', $7::jsonb FROM changed c)` + batchResult
	return run(ctx, tx, q, append(fixed, where.Args...))
}

// deleteBatch deletes the batch's jobs; their feedback and history go with them (ON DELETE CASCADE),
// the counters follow by trigger, and the executions of unfinished ones were deleted first.
func deleteBatch(ctx context.Context, tx *sqlx.Tx, t target, w window) (result, error) {
	fixed := []any{t.App, t.Org, w.After, w.UpTo, w.Limit}
	where, err := t.compile(len(fixed))
	if err != nil {
		return result{}, err
	}
	q := `WITH ` + batchCTE("", where.SQL) + `,
	changed AS (
		DELETE FROM jobs j USING batch b WHERE j.app_id = b.app_id AND j.id = b.id
		RETURNING j.id)` + batchResult
	return run(ctx, tx, q, append(fixed, where.Args...))
}

// rerunBatch resubmits the batch's unfinished jobs (PENDING, SCHEDULED, SUSPENDED, as the app update
// route describes) to the app's current flow under the operation's batch id: their old execution was
// stopped and detached first (haltExecutions) and their labeling lock is released. On an app with a flow
// they wait PENDING to be admitted, which starts a new execution of the flow (see admit); on an app
// without one they wait for a person (SCHEDULED, AWAITING_HUMAN), and PENDING ones for capacity.
func rerunBatch(ctx context.Context, tx *sqlx.Tx, t target, w window, a actor, batchID *string, details []byte) (result, error) {
	fixed := []any{t.App, t.Org, w.After, w.UpTo, w.Limit, a.Username, nullJSON(details), batchID}
	where, err := t.compile(len(fixed))
	if err != nil {
		return result{}, err
	}
	q := `WITH app AS (SELECT api_id IS NOT NULL AS has_flow FROM apps WHERE id = $1),
	` + batchCTE(scope(TypeRerun), where.SQL) + `,
	changed AS (
		UPDATE jobs j SET batch_id = $8,
		       status = CASE WHEN (SELECT has_flow FROM app) OR j.status = 'PENDING' THEN 'PENDING' ELSE 'SCHEDULED' END,
		       processing_state = CASE WHEN (SELECT has_flow FROM app) OR j.status = 'PENDING' THEN 'QUEUED'
		                               ELSE 'AWAITING_HUMAN' END,
		       flow_execution_id = NULL, assigned_to = NULL, lock_expires_at = NULL, updated_at = now()
		FROM batch b WHERE j.app_id = b.app_id AND j.id = b.id AND j.status IN ` + rerunnableJobs + `
		RETURNING j.id, b.status, j.status AS new_status),
	history AS (
		INSERT INTO job_history (job_id, app_id, organization_id, event, actor, from_status, to_status, details)
		SELECT c.id, $1, $2, 'STATUS_CHANGED', $6, c.status, c.new_status, $7::jsonb FROM changed c
		WHERE c.status <> c.new_status)` + batchResult
	return run(ctx, tx, q, append(fixed, where.Args...))
}

func run(ctx context.Context, tx *sqlx.Tx, q string, args []any) (result, error) {
	var r result
	if err := tx.GetContext(ctx, &r, q, args...); err != nil {
		return result{}, fmt.Errorf("bulk batch: %w", err)
	}
	return r, nil
}

// nullJSON passes JSON as text for a ::jsonb parameter, or NULL when there is none.
func nullJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

// operationDetails is the history details of a change an operation made.
func operationDetails(id any) []byte {
	b, _ := json.Marshal(map[string]any{"operation_id": id})
	return b
}
