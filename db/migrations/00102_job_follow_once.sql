-- +goose Up
-- A /v1 submission that starts its job's execution writes the job once (internal/v1/jobs, started.go).
-- Its start may move the execution two or three times in one transaction (queued, in progress, awaiting
-- input), and job_follows_execution moved the job each time: an update of the job, its history and its
-- counters each time, and every update of a row inserted in the same transaction checks all its foreign
-- keys again. The submission now starts the execution first and inserts the job last, where the
-- execution is (job_state), with the history it would have had: through IN_PROGRESS when the execution
-- left queued. No one outside the transaction could see the difference.
--
-- The execution names its job before the job exists, so its reference to the job is checked at commit.
-- (Referential actions are not deferred: deleting a job still clears the reference at once.)
ALTER TABLE flow_executions ALTER CONSTRAINT flow_executions_job_fkey DEFERRABLE INITIALLY DEFERRED;

-- job_state is where a job stands while its execution has a status; none for a status that does not
-- move it. job_follow is the trigger's body, which the trigger now calls, and so does a submission whose
-- execution ended within its start.
-- +goose StatementBegin
CREATE FUNCTION job_state(x flow_executions) RETURNS TABLE (status text, processing_state text) LANGUAGE sql STABLE AS $$
  SELECT m.s, m.ps FROM (VALUES
      ('queued', 'SCHEDULED', 'QUEUED'),
      ('running', 'IN_PROGRESS', 'PROCESSING'),
      ('in_progress', 'IN_PROGRESS', 'PROCESSING'),
      ('awaiting_input', 'SUSPENDED', 'AWAITING_HUMAN'),
      ('completed', 'COMPLETED', 'DONE'),
      ('failed', CASE WHEN x.error ->> 'type' = 'stopped' THEN 'CANCELED' ELSE 'FAILED' END, 'ERROR'),
      ('deleted', 'CANCELED', 'ERROR')) AS m (xs, s, ps)
  WHERE m.xs = x.status
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION job_follow(x flow_executions) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  s text;  -- the job's status
  ps text; -- its processing state
BEGIN
  IF x.job_id IS NULL THEN
    RETURN;
  END IF;
  SELECT js.status, js.processing_state INTO s, ps FROM job_state(x) js;
  IF NOT FOUND THEN
    RETURN; -- stale: the execution's result stands for the job
  END IF;
  WITH prev AS (
    SELECT id, app_id, organization_id, status, processing_state FROM jobs
    WHERE app_id = x.job_app_id AND id = x.job_id AND status NOT IN ('COMPLETED', 'FAILED', 'CANCELED', 'EXPIRED') FOR UPDATE),
  moved AS (
    UPDATE jobs j SET status = s, processing_state = ps, updated_at = now(),
      response = CASE WHEN s = 'COMPLETED' THEN x.output ELSE j.response END,
      error = CASE WHEN s = 'FAILED' THEN coalesce('task ' || (x.error ->> 'task') || ': ', '')
        || coalesce(x.error ->> 'message', 'the flow execution failed') ELSE j.error END,
      completed_at = CASE WHEN s = 'COMPLETED' THEN now() ELSE j.completed_at END,
      score = CASE WHEN s = 'COMPLETED' THEN coalesce(model_confidence(x.output), j.score) ELSE j.score END,
      -- A final job is nobody's to label any more.
      assigned_to = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.assigned_to END,
      lock_expires_at = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.lock_expires_at END
    FROM prev WHERE j.app_id = x.job_app_id AND j.id = x.job_id AND (prev.status <> s OR prev.processing_state <> ps)
    RETURNING j.id)
  INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status, details)
  SELECT prev.id, prev.app_id, prev.organization_id, e.event, e.from_status, e.to_status,
    jsonb_build_object('flow_execution_id', x.id)
  FROM prev JOIN moved ON moved.id = prev.id
  CROSS JOIN LATERAL (VALUES ('STATUS_CHANGED', prev.status, s), ('PROCESSING_STATE_CHANGED', prev.processing_state, ps))
    AS e (event, from_status, to_status)
  WHERE e.from_status <> e.to_status;
END $$;

CREATE OR REPLACE FUNCTION job_follows_execution() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A change of /v1's own (a bulk operation, the expiry sweep, a submission's start) moves its jobs itself.
  IF current_setting('loopwork.jobs_follow', true) = 'off' THEN
    RETURN NULL;
  END IF;
  PERFORM job_follow(NEW);
  RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE flow_executions ALTER CONSTRAINT flow_executions_job_fkey NOT DEFERRABLE;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION job_follows_execution() RETURNS trigger LANGUAGE plpgsql AS $$
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
      score = CASE WHEN s = 'COMPLETED' THEN coalesce(model_confidence(NEW.output), j.score) ELSE j.score END,
      -- A final job is nobody's to label any more.
      assigned_to = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.assigned_to END,
      lock_expires_at = CASE WHEN s IN ('COMPLETED', 'FAILED', 'CANCELED') THEN NULL ELSE j.lock_expires_at END
    FROM prev WHERE j.app_id = NEW.job_app_id AND j.id = NEW.job_id AND (prev.status <> s OR prev.processing_state <> ps)
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
DROP FUNCTION job_follow(flow_executions);
DROP FUNCTION job_state(flow_executions);
