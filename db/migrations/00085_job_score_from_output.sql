-- +goose Up
-- A job's score is its model confidence: the number between 0 and 1 that the flow's output gives as
-- `confidence` (or else `score`) at its top level, taken when the execution completes. Outputs without
-- one leave the score as it was (null, or what the submission set).
-- +goose StatementBegin
CREATE FUNCTION model_confidence(output jsonb) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
  -- Nested CASEs, because AND does not promise to test the type before the cast; numeric takes any JSON
  -- number, where float8 would fail on 1e400.
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN
           CASE WHEN (v::text)::numeric BETWEEN 0 AND 1 THEN (v::text)::numeric::float8 END END
  FROM (SELECT coalesce(CASE WHEN jsonb_typeof(output -> 'confidence') = 'number' THEN output -> 'confidence' END,
                        output -> 'score') AS v
        WHERE jsonb_typeof(output) = 'object') o
$$;
-- +goose StatementEnd
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

-- +goose Down
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
DROP FUNCTION model_confidence(jsonb);
