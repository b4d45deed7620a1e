package bench_test

import (
	"fmt"

	"github.com/loopwork/loopwork/internal/credits"
)

// flowRowsScript writes, in one statement and one transaction, every row a submission to an app bound to
// reviewedFlowBody leaves once its review is parked, in the state it leaves them: the job with its
// history, usage record and credit, the execution, its three tasks, the first task's completed attempt,
// the review's attempt and the review. k submissions go in each transaction. It is the floor under what
// the server can do: no reads, no updates, no statement more than needed, and at k > 1 what writing
// several submissions together (one statement, one commit) could reach at best.
func flowRowsScript(org, app, flow string, k int) string {
	return fmt.Sprintf(`BEGIN;
WITH g AS (SELECT nextval(pg_get_serial_sequence('jobs', 'id')) AS job, uuid7() AS x FROM generate_series(1, %[5]d)),
j AS (INSERT INTO jobs (id, organization_id, app_id, status, processing_state, input, tags, priority, flow_execution_id)
  OVERRIDING SYSTEM VALUE
  SELECT job, '%[1]s', '%[2]s', 'SUSPENDED', 'AWAITING_HUMAN', '{"text": "hello"}', '{}', 5, x FROM g),
h AS (INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status, details)
  SELECT g.job, '%[2]s', '%[1]s', e.event, e.f, e.t, jsonb_build_object('flow_execution_id', g.x)
  FROM g, (VALUES ('STATUS_CHANGED', 'SCHEDULED', 'IN_PROGRESS'), ('PROCESSING_STATE_CHANGED', 'QUEUED', 'PROCESSING'),
    ('STATUS_CHANGED', 'IN_PROGRESS', 'SUSPENDED'), ('PROCESSING_STATE_CHANGED', 'PROCESSING', 'AWAITING_HUMAN')) AS e (event, f, t)),
u AS (INSERT INTO usage_records (organization_id, product_id, job_id, amount) SELECT '%[1]s', '%[4]s', job, 1 FROM g),
c AS (INSERT INTO credit_balances (organization_id, shard, consumed) VALUES ('%[1]s', counter_shard(), %[5]d)
  ON CONFLICT (organization_id, shard) DO UPDATE SET consumed = credit_balances.consumed + EXCLUDED.consumed),
x AS (INSERT INTO flow_executions (id, organization_id, flow_id, flow_version, status, input, run_number, job_app_id, job_id,
    tasks_left, started_at)
  SELECT x, '%[1]s', '%[3]s', 1, 'awaiting_input', '{"text": "hello"}', 0, '%[2]s', job, 2, now() FROM g),
t AS (INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id, state, waiting_on, held, attempts, output)
  SELECT g.x, s.n, '%[1]s', s.st, s.w, s.h, s.a, s.o::jsonb FROM g, (VALUES ('prepare', 'completed', 0, true, 1, '{"text": "hello"}'),
    ('check', 'ready', 0, true, 1, NULL), ('finish', 'waiting', 1, false, 0, NULL)) AS s (n, st, w, h, a, o)),
a AS (INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input, output,
    started_at, completed_at)
  SELECT '%[1]s', g.x, s.n, 0, s.st, '{"text": "hello"}', s.o::jsonb, now(), s.done FROM g,
    (VALUES ('prepare', 'completed', '{"text": "hello"}', now()), ('check', 'running', NULL, NULL)) AS s (n, st, o, done))
INSERT INTO human_review_tasks (organization_id, flow_execution_id, target_task_name, target_task_execution_idx,
    source_task_name, source_task_execution_idx, holds_attempt)
  SELECT '%[1]s', x, 'check', 0, 'prepare', 0, true FROM g;
COMMIT;
`, org, app, flow, credits.JobSubmissionProduct, k)
}
