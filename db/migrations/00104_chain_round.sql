-- +goose Up
-- A round of a chain of computing tasks (see internal/engine/run/chainround.go) took four round trips
-- between the engine and the database: begin, the statement that completes an attempt and writes the
-- line of steps run ahead of it, the statement that completes the line and queues the task after it,
-- and commit. Each cost 0.2-0.35 ms beyond its time in the database, about a fifth of a round. This
-- function writes the whole round in one call, outside an explicit transaction, so that a round is one
-- round trip: the statements are the engine's, in the order and with the locks the engine's
-- transaction takes, and each check the engine made between them raises an error instead, so that a
-- round that finds the execution otherwise than it expects writes nothing, and the engine records its
-- completion the long way.
--
-- The attempt (p_task, p_idx) completes with p_output, unless its execution stopped (cancelled), or is
-- left alone when it is not running any more; in both cases nothing else is written. Otherwise the
-- line's tasks (p_names, each with the input it ran on and its output) and p_next, the task the line's
-- last output goes to, become ready, each waiting on the one before alone; the line's attempts are
-- written completed and its tasks completed; p_next's attempt is written running under the caller's
-- lease (p_lease seconds) on the line's last output; and the execution counts them all as final. The
-- execution's active statuses are the engine's state.ExecActive (a test compares them).
-- +goose StatementBegin
CREATE FUNCTION engine_chain_round(p_exec uuid, p_task text, p_idx bigint, p_output text, p_detail text,
  p_flow uuid, p_version int, p_names text[], p_inputs text[], p_outputs text[], p_details text[],
  p_next text, p_lease double precision,
  OUT attempt_status text, OUT next_idx int, OUT next_written boolean, OUT tasks_left int, OUT exec_status text)
LANGUAGE plpgsql AS $$
DECLARE
  v_org uuid;
  v_flow uuid;
  v_version int;
  v_ready int;
  v_written int;
  v_line int := cardinality(p_names);
BEGIN
  -- The status is compared under the "C" collation for the reason completeGroup gives.
  UPDATE task_executions t SET updated_at = now(), completed_at = now(),
      status = CASE WHEN x.status IN ('queued', 'running', 'in_progress', 'awaiting_input') THEN 'completed' ELSE 'cancelled' END,
      output = CASE WHEN x.status IN ('queued', 'running', 'in_progress', 'awaiting_input') THEN p_output::jsonb END,
      detail = coalesce(nullif(p_detail, '')::jsonb, t.detail)
    FROM flow_executions x
    WHERE t.flow_execution_id = p_exec AND t.task_name = p_task AND t.task_execution_idx = p_idx
      AND t.status COLLATE "C" = 'running' AND x.id = t.flow_execution_id
    RETURNING t.status, x.organization_id, x.flow_id, x.flow_version INTO attempt_status, v_org, v_flow, v_version;
  IF attempt_status IS DISTINCT FROM 'completed' THEN
    RETURN;
  END IF;
  IF v_flow <> p_flow OR v_version <> p_version THEN
    RAISE EXCEPTION 'the execution runs version % of flow %, the line was decided on version % of flow %',
      v_version, v_flow, p_version, p_flow USING ERRCODE = 'LW001';
  END IF;
  UPDATE execution_tasks k SET state = 'completed', output = p_output::jsonb, updated_at = now()
    WHERE k.flow_execution_id = p_exec AND k.task_name = p_task;

  WITH lk AS (
    UPDATE execution_tasks k SET state = 'ready', waiting_on = 0, held = true, attempts = k.attempts + 1, updated_at = now()
      WHERE k.flow_execution_id = p_exec AND k.task_name = ANY(p_names || p_next)
        AND k.task_name BETWEEN (SELECT min(v) FROM unnest(p_names || p_next) v) AND (SELECT max(v) FROM unnest(p_names || p_next) v)
        AND k.state = 'waiting' AND k.waiting_on = 1
      RETURNING k.task_name, k.attempts),
  la AS (
    INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input,
        output, detail, started_at, completed_at, timeout_at)
      SELECT v_org, p_exec, ld.n, lk.attempts - 1, 'completed', ld.inp::jsonb, ld.o::jsonb, nullif(ld.dt, '')::jsonb,
        now(), now(), now() + make_interval(secs => p_lease)
      FROM unnest(p_names, p_inputs, p_outputs, p_details) AS ld (n, inp, o, dt) JOIN lk ON lk.task_name = ld.n
      ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING
      RETURNING 1)
  SELECT (SELECT count(*) FROM lk), (SELECT count(*) FROM la), (SELECT attempts - 1 FROM lk WHERE task_name = p_next)
    INTO v_ready, v_written, next_idx;
  IF v_ready <> v_line + 1 OR v_written <> v_line THEN
    RAISE EXCEPTION 'a line of % steps then % made % tasks ready and wrote % attempts', v_line, p_next, v_ready, v_written
      USING ERRCODE = 'LW002';
  END IF;

  UPDATE execution_tasks k SET state = 'completed', output = d.o::jsonb, updated_at = now()
    FROM unnest(p_names, p_outputs) AS d (n, o)
    WHERE k.flow_execution_id = p_exec AND k.task_name = d.n
      AND k.task_name BETWEEN (SELECT min(v) FROM unnest(p_names) v) AND (SELECT max(v) FROM unnest(p_names) v)
      AND k.state = 'ready';
  INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input,
      started_at, timeout_at)
    VALUES (v_org, p_exec, p_next, next_idx, 'running', p_outputs[v_line]::jsonb, now(), now() + make_interval(secs => p_lease))
    ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING;
  next_written := FOUND;

  UPDATE flow_executions x SET tasks_left = x.tasks_left - (v_line + 1), updated_at = now(),
      started_at = coalesce(x.started_at, now()),
      status = CASE
        WHEN x.status IN ('queued', 'running') THEN 'in_progress'
        WHEN x.status = 'awaiting_input' AND NOT EXISTS (SELECT 1 FROM task_executions t JOIN execution_tasks k
          ON k.flow_execution_id = t.flow_execution_id AND k.task_name = t.task_name AND k.attempts = t.task_execution_idx + 1
          WHERE t.flow_execution_id = p_exec AND t.status = 'running' AND t.timeout_at IS NULL AND t.wake_at IS NULL)
        THEN 'in_progress'
        ELSE x.status END
    WHERE x.id = p_exec
    RETURNING x.tasks_left, x.status INTO tasks_left, exec_status;
  IF tasks_left <= 0 THEN
    -- p_next is not final yet, so the execution cannot be done: its count is off, and the engine's
    -- transaction finds out why.
    RAISE EXCEPTION 'a line of % steps then % left % tasks to the execution', v_line, p_next, tasks_left USING ERRCODE = 'LW003';
  END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION engine_chain_round(uuid, text, bigint, text, text, uuid, int, text[], text[], text[], text[], text, double precision);
