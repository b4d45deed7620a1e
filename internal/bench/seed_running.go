package bench

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// SeedRunningJobs inserts n SCHEDULED jobs of an app bound to flow, each with its execution queued on
// version 1 as the engine lays it out for a flow of one external task named task: the task ready with
// its first attempt queued for an outside worker. Batches of 50,000, for setup only.
func SeedRunningJobs(ctx context.Context, db *sqlx.DB, org, app, flow uuid.UUID, task string, n int) (time.Duration, error) {
	start := time.Now()
	const batch = 50_000
	for from := 0; from < n; from += batch {
		count := min(batch, n-from)
		_, err := db.ExecContext(ctx, `
			WITH j AS (
				INSERT INTO jobs (organization_id, app_id, status, processing_state, input, priority)
				SELECT $1, $2, 'SCHEDULED', 'QUEUED', jsonb_build_object('n', i), 5 FROM generate_series(1, $4::int) i
				RETURNING id),
			x AS (
				INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, input, run_number, job_app_id, job_id, tasks_left)
				SELECT $1, $3, 1, 'queued', '{}', 0, $2, j.id, 1 FROM j
				RETURNING id, job_id),
			k AS (
				INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id, state, waiting_on, held, attempts)
				SELECT x.id, $5, $1, 'ready', 0, true, 1 FROM x),
			t AS (
				INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input)
				SELECT $1, x.id, $5, 0, 'queued', '{}' FROM x)
			SELECT count(*) FROM x`,
			org, app, flow, count, task)
		if err != nil {
			return 0, err
		}
		// A statement does not see the rows its own parts insert: the jobs learn their executions next.
		if _, err := db.ExecContext(ctx, `UPDATE jobs SET flow_execution_id = x.id FROM flow_executions x
			WHERE jobs.app_id = $1 AND jobs.flow_execution_id IS NULL AND x.job_app_id = $1 AND x.job_id = jobs.id`, app); err != nil {
			return 0, err
		}
	}
	_, err := db.ExecContext(ctx, `ANALYZE jobs; ANALYZE flow_executions; ANALYZE task_executions`)
	return time.Since(start), err
}
