-- +goose Up
-- A job of an app bound to a flow runs as a flow execution. The execution names its job, and a trigger
-- moves the job with every change of the execution's status, in the transaction that makes it: a job
-- never disagrees with its execution, whichever path (a task's outcome, a review, a stop or a delete
-- through /api, the time-to-live sweep) moved it. Jobs that are final already stay so, and /v1's own
-- changes (bulk operations, the expiry sweep), which stop executions and move their jobs themselves,
-- turn it off for their statements (loopwork.jobs_follow = off).
ALTER TABLE flow_executions ADD COLUMN job_app_id uuid, ADD COLUMN job_id bigint,
  ADD CONSTRAINT flow_executions_job_fkey FOREIGN KEY (job_app_id, job_id) REFERENCES jobs (app_id, id) ON DELETE SET NULL;
CREATE INDEX flow_executions_job_idx ON flow_executions (job_app_id, job_id) WHERE job_id IS NOT NULL;
CREATE INDEX jobs_execution_idx ON jobs (flow_execution_id) WHERE flow_execution_id IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION job_follows_execution() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s text;  -- the job's status
  ps text; -- its processing state
BEGIN
  -- A change of /v1's own (a bulk operation, the expiry sweep) moves its jobs itself.
  IF current_setting('loopwork.jobs_follow', true) = 'off' THEN
    RETURN NULL;
  END IF;
  CASE NEW.status
    WHEN 'queued' THEN s := 'SCHEDULED'; ps := 'QUEUED';
    WHEN 'running', 'in_progress' THEN s := 'IN_PROGRESS'; ps := 'PROCESSING';
    WHEN 'awaiting_input' THEN s := 'SUSPENDED'; ps := 'AWAITING_HUMAN';
    WHEN 'completed' THEN s := 'COMPLETED'; ps := 'DONE';
    WHEN 'failed' THEN
      IF NEW.error ->> 'type' = 'stopped' THEN s := 'CANCELED'; ELSE s := 'FAILED'; END IF;
      ps := 'ERROR';
    WHEN 'deleted' THEN s := 'CANCELED'; ps := 'ERROR';
    ELSE RETURN NULL; -- stale: the execution's result stands for the job
  END CASE;
  WITH prev AS (
    SELECT id, app_id, organization_id, status, processing_state FROM jobs
    WHERE app_id = NEW.job_app_id AND id = NEW.job_id AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELED', 'EXPIRED') FOR UPDATE),
  moved AS (
    UPDATE jobs j SET status = s, processing_state = ps, updated_at = now(),
      response = CASE WHEN s = 'COMPLETED' THEN NEW.output ELSE j.response END,
      error = CASE WHEN s = 'FAILED' THEN coalesce('task ' || (NEW.error ->> 'task') || ': ', '')
        || coalesce(NEW.error ->> 'message', 'the flow execution failed') ELSE j.error END,
      completed_at = CASE WHEN s = 'COMPLETED' THEN now() ELSE j.completed_at END,
      -- A final job is nobody's to label any more.
      assigned_to = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.assigned_to END,
      lock_expires_at = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.lock_expires_at END
    FROM prev WHERE j.app_id = NEW.job_app_id AND j.id = prev.id AND (prev.status <> s OR prev.processing_state <> ps)
    RETURNING j.id)
  INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status, details)
  SELECT prev.id, prev.app_id, prev.organization_id, e.event, e.from_status, e.to_status,
    jsonb_build_object('flow_execution_id', NEW.id)
  FROM prev JOIN moved ON moved.id = prev.id
  CROSS JOIN LATERAL (VALUES ('STATUS_CHANGED', prev.status, s), ('PROCESSING_STATE_CHANGED', prev.processing_state, ps))
    AS e (event, from_status, to_status)
  WHERE e.from_status <> e.to_status;
  RETURN NULL;
END $$;
-- +goose StatementEnd

-- running and in_progress are one job status (IN_PROGRESS): a move between them leaves the job alone,
-- without taking its row.
CREATE TRIGGER job_follows_execution AFTER UPDATE OF status ON flow_executions
  FOR EACH ROW WHEN (NEW.job_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
    AND NOT (OLD.status IN ('running', 'in_progress') AND NEW.status IN ('running', 'in_progress')))
  EXECUTE FUNCTION job_follows_execution();

-- Open reviews are withdrawn from the reviewers' queues whenever their execution ends without them:
-- deleted, stopped (a /v1 job canceled, an execution stopped through /api) or failed.
DROP TRIGGER human_review_cancel_on_delete ON flow_executions;
CREATE TRIGGER human_review_cancel_on_delete AFTER UPDATE OF status ON flow_executions
  FOR EACH ROW WHEN (NEW.status IN ('deleted', 'failed') AND OLD.status NOT IN ('deleted', 'failed'))
  EXECUTE FUNCTION human_review_cancel_on_delete();

-- +goose Down
DROP TRIGGER human_review_cancel_on_delete ON flow_executions;
CREATE TRIGGER human_review_cancel_on_delete AFTER UPDATE OF status ON flow_executions
  FOR EACH ROW WHEN (NEW.status = 'deleted' AND OLD.status <> 'deleted')
  EXECUTE FUNCTION human_review_cancel_on_delete();
DROP TRIGGER job_follows_execution ON flow_executions;
DROP FUNCTION job_follows_execution();
DROP INDEX jobs_execution_idx;
DROP INDEX flow_executions_job_idx;
ALTER TABLE flow_executions DROP CONSTRAINT flow_executions_job_fkey;
ALTER TABLE flow_executions DROP COLUMN job_id, DROP COLUMN job_app_id;
