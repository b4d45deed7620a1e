-- The schema of a fully migrated loopwork database, River's tables included, as pg_dump of
-- PostgreSQL 15 prints it (--schema-only --no-owner --no-privileges). Written by `make schema`;
-- do not edit it: change db/migrations and run make schema. A test fails when it is stale.

--
-- Name: citext; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;


--
-- Name: EXTENSION citext; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION citext IS 'data type for case-insensitive character strings';


--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


--
-- Name: river_job_state; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.river_job_state AS ENUM (
    'available',
    'cancelled',
    'completed',
    'discarded',
    'pending',
    'retryable',
    'running',
    'scheduled'
);


--
-- Name: counter_shard(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.counter_shard() RETURNS smallint
    LANGUAGE plpgsql
    AS $$
DECLARE
  s text := current_setting('loopwork.counter_shard', true);
  held int;
BEGIN
  IF s IS NOT NULL AND s <> '' THEN
    RETURN s::smallint;
  END IF;
  SELECT l.objid::int INTO held FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid()
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = 1819242339 AND l.objsubid = 2 AND l.granted LIMIT 1;
  IF held IS NULL THEN
    FOR i IN 0..1023 LOOP
      IF pg_try_advisory_lock(1819242339, i) THEN
        held := i;
        EXIT;
      END IF;
    END LOOP;
  END IF;
  IF held IS NULL THEN
    RETURN (pg_backend_pid() % 1024)::smallint;
  END IF;
  PERFORM set_config('loopwork.counter_shard', held::text, false);
  RETURN held::smallint;
END $$;


--
-- Name: engine_chain_round(uuid, text, bigint, text, text, uuid, integer, text[], text[], text[], text[], text, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.engine_chain_round(p_exec uuid, p_task text, p_idx bigint, p_output text, p_detail text, p_flow uuid, p_version integer, p_names text[], p_inputs text[], p_outputs text[], p_details text[], p_next text, p_lease double precision, OUT attempt_status text, OUT next_idx integer, OUT next_written boolean, OUT tasks_left integer, OUT exec_status text) RETURNS record
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: flows_count(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.flows_count() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, count(*) FROM new_flows WHERE deleted_at IS NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, -count(*) FROM old_flows WHERE deleted_at IS NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, sum(d) FROM (
      SELECT organization_id, visibility, status, -1 AS d FROM old_flows WHERE deleted_at IS NULL
      UNION ALL
      SELECT organization_id, visibility, status, 1 FROM new_flows WHERE deleted_at IS NULL) moved
    GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;


--
-- Name: flows_follow_latest_version(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.flows_follow_latest_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE flows f SET display_name = v.display_name, description = v.description, status = v.status,
    visibility = coalesce(v.visibility, 'organization'), updated_at = v.updated_at
  FROM new_versions v WHERE f.id = v.flow_id AND f.latest_version = v.version;
  RETURN NULL;
END $$;


--
-- Name: human_review_cancel_on_delete(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.human_review_cancel_on_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  UPDATE human_review_assignments a SET status = 'cancelled', updated_at = now(), modified_by = 'system'
  FROM human_review_tasks t
  WHERE t.flow_execution_id = NEW.id AND t.status <> 'completed' AND a.human_review_task_id = t.id
    AND a.status IN ('pending', 'in_progress');
  RETURN NULL;
END $$;


--
-- Name: job_counters_delete(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_counters_delete() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, counter_shard(), -count(*) FROM old_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;


--
-- Name: job_counters_insert(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_counters_insert() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, counter_shard(), count(*) FROM new_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;


--
-- Name: job_counters_update(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_counters_update() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, counter_shard(), sum(d) FROM (
    SELECT app_id, status, -1 AS d FROM old_jobs
    UNION ALL
    SELECT app_id, status, 1 FROM new_jobs
  ) changes GROUP BY app_id, status HAVING sum(d) <> 0
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;


--
-- Name: uuid7(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.uuid7() RETURNS uuid
    LANGUAGE sql PARALLEL SAFE
    AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$;


--
-- Name: flow_executions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_executions (
    id uuid DEFAULT public.uuid7() NOT NULL,
    organization_id uuid NOT NULL,
    flow_id uuid NOT NULL,
    flow_version integer NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    input jsonb DEFAULT '{}'::jsonb NOT NULL,
    output jsonb,
    error jsonb,
    run_number bigint NOT NULL,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    deleted_at timestamp with time zone,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    tasks_left integer DEFAULT 0 NOT NULL,
    job_app_id uuid,
    job_id bigint,
    CONSTRAINT flow_executions_flow_version_check CHECK ((flow_version >= 1)),
    CONSTRAINT flow_executions_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'in_progress'::text, 'completed'::text, 'failed'::text, 'deleted'::text, 'stale'::text, 'awaiting_input'::text]))),
    CONSTRAINT flow_executions_tasks_left_check CHECK ((tasks_left >= 0))
);


--
-- Name: job_follow(public.flow_executions); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_follow(x public.flow_executions) RETURNS void
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: job_follows_execution(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_follows_execution() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  -- A change of /v1's own (a bulk operation, the expiry sweep, a submission's start) moves its jobs itself.
  IF current_setting('loopwork.jobs_follow', true) = 'off' THEN
    RETURN NULL;
  END IF;
  PERFORM job_follow(NEW);
  RETURN NULL;
END $$;


--
-- Name: job_review(uuid); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_review(p_execution uuid) RETURNS uuid
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
  RETURN (SELECT r.id FROM human_review_tasks r WHERE r.flow_execution_id = p_execution AND r.status <> 'completed'
          ORDER BY r.created_at, r.id LIMIT 1);
END $$;


--
-- Name: job_state(public.flow_executions); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.job_state(x public.flow_executions) RETURNS TABLE(status text, processing_state text)
    LANGUAGE sql STABLE
    AS $$
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


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    status text NOT NULL,
    processing_state text NOT NULL,
    input jsonb NOT NULL,
    response jsonb,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    batch_id text,
    priority smallint DEFAULT 5 NOT NULL,
    score double precision,
    trust_score double precision,
    correct boolean,
    reviewed text,
    first_incorrect boolean DEFAULT false NOT NULL,
    edited boolean DEFAULT false NOT NULL,
    relabeled boolean DEFAULT false NOT NULL,
    is_measurement boolean DEFAULT false NOT NULL,
    labeled_by uuid,
    labeled_at timestamp with time zone,
    assigned_to uuid,
    lock_expires_at timestamp with time zone,
    feedback_count integer DEFAULT 0 NOT NULL,
    feedback_tags text[] DEFAULT '{}'::text[] NOT NULL,
    last_feedback_at timestamp with time zone,
    flow_execution_id uuid,
    error text,
    created_by uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    expires_at timestamp with time zone,
    onboarding_code bigint,
    CONSTRAINT jobs_priority_check CHECK (((priority >= 1) AND (priority <= 10))),
    CONSTRAINT jobs_processing_state_check CHECK ((processing_state = ANY (ARRAY['QUEUED'::text, 'PROCESSING'::text, 'AWAITING_HUMAN'::text, 'LABELED'::text, 'REVIEWED'::text, 'DONE'::text, 'ERROR'::text]))),
    CONSTRAINT jobs_reviewed_check CHECK ((reviewed = ANY (ARRAY['CORRECT'::text, 'NOT_CORRECT'::text]))),
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['SCHEDULED'::text, 'IN_PROGRESS'::text, 'SUSPENDED'::text, 'PENDING'::text, 'FAILED'::text, 'CANCELED'::text, 'EXPIRED'::text, 'COMPLETED'::text])))
);


--
-- Name: label_lease(uuid, uuid, uuid, text, integer, boolean, boolean, bigint, timestamp with time zone, timestamp with time zone, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.label_lease(p_org uuid, p_app uuid, p_user uuid, p_actor text, p_minutes integer, p_suspended_only boolean, p_enabled boolean, p_job bigint, p_from timestamp with time zone, p_to timestamp with time zone, p_admin boolean) RETURNS TABLE(job public.jobs, holder text, labeler text, remaining bigint)
    LANGUAGE plpgsql
    AS $_$
DECLARE
  v_id bigint;
  v_status text;
  v_user uuid;         -- who held the job before this lease
  v_lock timestamptz;  -- and until when
  v_exec uuid;         -- the job's flow execution
  v_row jobs;
BEGIN
  SET LOCAL synchronous_commit = off;
  PERFORM pg_advisory_xact_lock(hashtextextended('label:' || p_app::text || ':' || p_user::text, 0));
  IF p_job IS NOT NULL THEN
    SELECT j.id, j.status, j.assigned_to, j.lock_expires_at, j.flow_execution_id INTO v_id, v_status, v_user, v_lock, v_exec
    FROM jobs j WHERE j.app_id = p_app AND j.id = p_job AND j.organization_id = p_org FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'job % not found', p_job USING ERRCODE = 'no_data_found';
    END IF;
    IF NOT p_enabled OR v_status NOT IN ('SCHEDULED', 'SUSPENDED') OR (p_suspended_only AND v_status <> 'SUSPENDED') THEN
      RETURN;
    END IF;
    -- A job whose review the caller may not complete is not the caller's to label: nothing to hand out.
    IF v_exec IS NOT NULL AND NOT review_open_to(job_review(v_exec), p_user, p_admin, true) THEN
      RETURN;
    END IF;
    IF v_user IS NOT NULL AND v_lock > now() AND v_user <> p_user THEN
      SELECT * INTO v_row FROM jobs j WHERE j.app_id = p_app AND j.id = v_id;
    END IF;
  ELSE
    SELECT j.id, j.assigned_to, j.lock_expires_at INTO v_id, v_user, v_lock
    FROM jobs j
    WHERE j.app_id = p_app AND j.organization_id = p_org AND j.assigned_to = p_user AND j.lock_expires_at > now()
      AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')
      AND (j.flow_execution_id IS NULL OR review_open_to(job_review(j.flow_execution_id), p_user, p_admin, true))
    ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE;
    IF NOT FOUND AND p_from IS NULL AND p_to IS NULL THEN
      -- The first free job, as before the review rule; the rule is asked of that one job only. Asked of
      -- every row in the scan, it made the planner sort the whole queue and ask it of each free job.
      SELECT j.id, j.assigned_to, j.lock_expires_at, j.flow_execution_id INTO v_id, v_user, v_lock, v_exec
      FROM jobs j
      WHERE j.app_id = p_app AND j.organization_id = p_org
        AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')
        AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now())
      ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE SKIP LOCKED;
      -- Reserved for others: the first free job the rule lets the caller take, passing over the rest.
      -- (The job just locked stays locked until this transaction ends; others pass over it meanwhile.)
      IF FOUND AND v_exec IS NOT NULL AND NOT review_open_to(job_review(v_exec), p_user, p_admin, true) THEN
        v_id := NULL;
        SELECT j.id, j.assigned_to, j.lock_expires_at INTO v_id, v_user, v_lock
        FROM jobs j
        WHERE j.app_id = p_app AND j.organization_id = p_org
          AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')
          AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now())
          AND (j.flow_execution_id IS NULL OR review_open_to(job_review(j.flow_execution_id), p_user, p_admin, true))
        ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE SKIP LOCKED;
      END IF;
    ELSIF NOT FOUND THEN
      EXECUTE $q$SELECT j.id, j.assigned_to, j.lock_expires_at FROM jobs j
        WHERE j.app_id = $1 AND j.organization_id = $2
          AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT $3 OR j.status = 'SUSPENDED')
          AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now())
          AND ($4::timestamptz IS NULL OR j.created_at >= $4) AND ($5::timestamptz IS NULL OR j.created_at < $5)
          AND (j.flow_execution_id IS NULL OR review_open_to(job_review(j.flow_execution_id), $6, $7, true))
        ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE SKIP LOCKED$q$
        INTO v_id, v_user, v_lock USING p_app, p_org, p_suspended_only, p_from, p_to, p_user, p_admin;
    END IF;
    IF v_id IS NULL THEN
      RETURN;
    END IF;
  END IF;

  IF v_row.id IS NULL THEN
    UPDATE jobs j SET assigned_to = p_user, lock_expires_at = now() + make_interval(mins => p_minutes), updated_at = now()
    WHERE j.app_id = p_app AND j.id = v_id RETURNING * INTO v_row;
    IF v_user IS DISTINCT FROM p_user OR v_lock IS NULL OR v_lock <= now() THEN
      INSERT INTO job_history (organization_id, app_id, job_id, at, event, actor, details)
      SELECT p_org, p_app, v_id, e.at, e.event, e.actor, e.details
      FROM (VALUES
          (1, v_lock, 'RELEASED', (SELECT u.email::text FROM users u WHERE u.id = v_user), '{"reason": "lock expired"}'::jsonb),
          (2, now(), 'ASSIGNED', p_actor, jsonb_build_object('lock_expires_at', v_row.lock_expires_at))
        ) e (n, at, event, actor, details)
      WHERE e.n = 2 OR v_lock IS NOT NULL
      ORDER BY e.n;
    END IF;
  END IF;

  job := v_row;
  IF v_row.assigned_to IS NOT NULL AND v_row.lock_expires_at > now() THEN
    holder := (SELECT u.email::text FROM users u WHERE u.id = v_row.assigned_to);
  END IF;
  IF v_row.labeled_by IS NOT NULL THEN
    labeler := (SELECT u.email::text FROM users u WHERE u.id = v_row.labeled_by);
  END IF;
  remaining := greatest(0,
    (SELECT coalesce(sum(c.n), 0) FROM job_counters c WHERE c.app_id = p_app
       AND c.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR c.status = 'SUSPENDED'))
    - (SELECT count(*) FROM jobs j WHERE j.app_id = p_app AND j.organization_id = p_org
       AND j.assigned_to IS NOT NULL AND j.lock_expires_at > now()
       AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')));
  RETURN NEXT;
END $_$;


--
-- Name: model_confidence(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.model_confidence(output jsonb) RETURNS double precision
    LANGUAGE sql IMMUTABLE
    AS $$
  -- Nested CASEs, because AND does not promise to test the type before the cast; numeric takes any JSON
  -- number, where float8 would fail on 1e400.
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN
           CASE WHEN (v::text)::numeric BETWEEN 0 AND 1 THEN (v::text)::numeric::float8 END END
  FROM (SELECT coalesce(CASE WHEN jsonb_typeof(output -> 'confidence') = 'number' THEN output -> 'confidence' END,
                        output -> 'score') AS v
        WHERE jsonb_typeof(output) = 'object') o
$$;


--
-- Name: notify_access_change(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.notify_access_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM pg_notify('loopwork_access', TG_TABLE_NAME);
  RETURN NULL;
END $$;


--
-- Name: review_open_to(uuid, uuid, boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.review_open_to(p_review uuid, p_user uuid, p_admin boolean, p_worker boolean) RETURNS boolean
    LANGUAGE plpgsql STABLE
    AS $$
BEGIN
  RETURN p_admin
    OR EXISTS (SELECT 1 FROM human_review_assignments a WHERE a.human_review_task_id = p_review AND a.user_id = p_user)
    OR (p_worker AND NOT EXISTS (SELECT 1 FROM human_review_tasks r WHERE r.id = p_review AND r.users_named));
END $$;


--
-- Name: river_job_state_in_bitmask(bit, public.river_job_state); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.river_job_state_in_bitmask(bitmask bit, state public.river_job_state) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT CASE state
        WHEN 'available' THEN get_bit(bitmask, 7)
        WHEN 'cancelled' THEN get_bit(bitmask, 6)
        WHEN 'completed' THEN get_bit(bitmask, 5)
        WHEN 'discarded' THEN get_bit(bitmask, 4)
        WHEN 'pending'   THEN get_bit(bitmask, 3)
        WHEN 'retryable' THEN get_bit(bitmask, 2)
        WHEN 'running'   THEN get_bit(bitmask, 1)
        WHEN 'scheduled' THEN get_bit(bitmask, 0)
        ELSE 0
    END = 1;
$$;


--
-- Name: set_updated_at(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.set_updated_at() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;


--
-- Name: api_desired_metrics; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_desired_metrics (
    api_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    metrics jsonb DEFAULT '[]'::jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid,
    service_account_id uuid,
    name text NOT NULL,
    description text,
    token_prefix text NOT NULL,
    token_hash bytea NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT api_keys_check CHECK (((user_id IS NULL) <> (service_account_id IS NULL))),
    CONSTRAINT api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 255)))
);


--
-- Name: app_tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_tags (
    app_id uuid NOT NULL,
    tag text NOT NULL,
    organization_id uuid NOT NULL,
    description text,
    color text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT app_tags_tag_check CHECK ((((char_length(tag) >= 1) AND (char_length(tag) <= 100)) AND (POSITION((','::text) IN (tag)) = 0)))
);


--
-- Name: app_worker_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_worker_groups (
    app_id uuid NOT NULL,
    group_id bigint NOT NULL,
    organization_id uuid NOT NULL,
    role text NOT NULL,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT app_worker_groups_role_check CHECK ((role = ANY (ARRAY['LABELER'::text, 'REVIEWER'::text, 'MANAGER'::text])))
);


--
-- Name: app_workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.app_workers (
    app_id uuid NOT NULL,
    user_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    role text NOT NULL,
    added_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT app_workers_role_check CHECK ((role = ANY (ARRAY['LABELER'::text, 'REVIEWER'::text, 'MANAGER'::text])))
);


--
-- Name: apps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apps (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    name text NOT NULL,
    description text,
    api_id uuid,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    job_ttl_seconds integer,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    owner_id uuid,
    owner_activity_at timestamp with time zone,
    previous_owner_activity_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT apps_job_ttl_seconds_check CHECK ((job_ttl_seconds > 0)),
    CONSTRAINT apps_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 255))),
    CONSTRAINT apps_status_check CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'PAUSED'::text, 'ARCHIVED'::text])))
);


--
-- Name: auth_link_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_link_tokens (
    token_hash bytea NOT NULL,
    user_id uuid NOT NULL,
    kind text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT auth_link_tokens_kind_check CHECK ((kind = ANY (ARRAY['invite'::text, 'recovery'::text])))
);


--
-- Name: auth_refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_refresh_tokens (
    token_hash bytea NOT NULL,
    session_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);


--
-- Name: auth_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_sessions (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    refreshed_at timestamp with time zone,
    revoked_at timestamp with time zone,
    user_agent text,
    ip text
);


--
-- Name: auth_signing_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auth_signing_keys (
    kid text NOT NULL,
    algorithm text NOT NULL,
    private_key bytea NOT NULL,
    public_jwk jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    activated_at timestamp with time zone NOT NULL,
    retire_at timestamp with time zone
);


--
-- Name: baseline_data; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.baseline_data (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    api_id uuid NOT NULL,
    type text DEFAULT 'OWNER'::text NOT NULL,
    input jsonb NOT NULL,
    response jsonb NOT NULL,
    label text,
    source_job_id bigint,
    created_by text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT baseline_data_label_check CHECK ((char_length(label) <= 200)),
    CONSTRAINT baseline_data_type_check CHECK ((type = ANY (ARRAY['OWNER'::text, 'REVIEW'::text, 'GOLD_WORKFLOW'::text])))
);


--
-- Name: baseline_data_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.baseline_data ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.baseline_data_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: bulk_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bulk_operations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    type text NOT NULL,
    status text DEFAULT 'QUEUED'::text NOT NULL,
    filter jsonb DEFAULT '{}'::jsonb NOT NULL,
    params jsonb,
    batch_id text,
    total bigint,
    processed bigint DEFAULT 0 NOT NULL,
    last_id bigint DEFAULT 0 NOT NULL,
    error text,
    created_by text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    beat_at timestamp with time zone,
    CONSTRAINT bulk_operations_status_check CHECK ((status = ANY (ARRAY['QUEUED'::text, 'RUNNING'::text, 'SUCCEEDED'::text, 'FAILED'::text]))),
    CONSTRAINT bulk_operations_type_check CHECK ((type = ANY (ARRAY['CANCEL_JOBS'::text, 'DELETE_JOBS'::text, 'RERUN_JOBS'::text])))
);


--
-- Name: chat_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chat_messages (
    id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    flow_id uuid,
    sender text NOT NULL,
    body jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);


--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid NOT NULL,
    flow_id uuid,
    title text,
    phase text NOT NULL,
    pending jsonb,
    streaming_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT conversations_phase_check CHECK ((phase = ANY (ARRAY['plan'::text, 'build'::text])))
);


--
-- Name: credentials; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credentials (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid,
    name text NOT NULL,
    provider text NOT NULL,
    credential_type text,
    sealed_secret bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    shared boolean DEFAULT false NOT NULL,
    allowed_domains text[] DEFAULT '{*}'::text[] NOT NULL,
    CONSTRAINT credentials_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 255)))
);


--
-- Name: credit_balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_balances (
    organization_id uuid NOT NULL,
    shard smallint NOT NULL,
    granted bigint DEFAULT 0 NOT NULL,
    consumed bigint DEFAULT 0 NOT NULL,
    CONSTRAINT credit_balances_shard_check CHECK (((shard >= 0) AND (shard <= 1023)))
);


--
-- Name: credit_grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.credit_grants (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    amount bigint NOT NULL,
    reason text NOT NULL,
    granted_by text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT credit_grants_amount_check CHECK ((amount > 0)),
    CONSTRAINT credit_grants_reason_check CHECK ((char_length(reason) <= 500))
);


--
-- Name: document_databases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_databases (
    organization_id uuid NOT NULL,
    database_name text NOT NULL,
    role_name text NOT NULL,
    sealed_password bytea NOT NULL,
    ready boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: document_revisions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_revisions (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    document_id uuid NOT NULL,
    upload_id uuid NOT NULL,
    status text NOT NULL,
    table_name text NOT NULL,
    delimiter text NOT NULL,
    has_header boolean NOT NULL,
    columns text[],
    total_rows bigint,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT document_revisions_status_check CHECK ((status = ANY (ARRAY['processing'::text, 'ready'::text, 'failed'::text])))
);


--
-- Name: document_schemas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_schemas (
    organization_id uuid NOT NULL,
    schema_name text NOT NULL,
    role_name text NOT NULL,
    sealed_password bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: document_uploads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_uploads (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    document_id uuid NOT NULL,
    file_key text NOT NULL,
    file_name text NOT NULL,
    file_size bigint NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.documents (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid,
    name text NOT NULL,
    database_type text NOT NULL,
    description text,
    credential_id uuid,
    source_table text,
    status text NOT NULL,
    status_before text,
    error text,
    current_revision uuid,
    current_file_id uuid,
    current_table_name text,
    revision_count integer DEFAULT 0 NOT NULL,
    total_rows bigint DEFAULT 0 NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT documents_check CHECK (((database_type = 'sql'::text) = ((credential_id IS NOT NULL) AND (source_table IS NOT NULL)))),
    CONSTRAINT documents_database_type_check CHECK ((database_type = ANY (ARRAY['csv'::text, 'sql'::text]))),
    CONSTRAINT documents_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 255))),
    CONSTRAINT documents_status_check CHECK ((status = ANY (ARRAY['empty'::text, 'uploading'::text, 'processing'::text, 'ready'::text, 'failed'::text])))
);


--
-- Name: email_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_messages (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    email_task_id uuid NOT NULL,
    message_id text,
    sender text NOT NULL,
    recipients text[] NOT NULL,
    subject text NOT NULL,
    size bigint NOT NULL,
    attachments jsonb DEFAULT '[]'::jsonb NOT NULL,
    execution_id uuid,
    not_started text,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    content_digest bytea
);


--
-- Name: email_tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_tasks (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    user_id uuid,
    name text NOT NULL,
    description text,
    flow_id uuid,
    task_name text,
    local_part text NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    email_count bigint DEFAULT 0 NOT NULL,
    last_email_received timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT email_tasks_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 255))),
    CONSTRAINT email_tasks_status_check CHECK ((status = ANY (ARRAY['active'::text, 'disabled'::text])))
);


--
-- Name: execution_tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.execution_tasks (
    flow_execution_id uuid NOT NULL,
    task_name text NOT NULL,
    organization_id uuid NOT NULL,
    state text DEFAULT 'waiting'::text NOT NULL,
    waiting_on integer NOT NULL,
    held boolean DEFAULT false NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    output jsonb,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT execution_tasks_state_check CHECK ((state = ANY (ARRAY['waiting'::text, 'ready'::text, 'completed'::text, 'failed'::text, 'skipped'::text, 'cancelled'::text]))),
    CONSTRAINT execution_tasks_waiting_on_check CHECK ((waiting_on >= 0))
);


--
-- Name: exports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.exports (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    status text DEFAULT 'QUEUED'::text NOT NULL,
    filename text NOT NULL,
    format text NOT NULL,
    options jsonb NOT NULL,
    filter jsonb NOT NULL,
    file_options jsonb NOT NULL,
    email text,
    storage_key text NOT NULL,
    job_count bigint,
    size_bytes bigint,
    error text,
    attempts integer DEFAULT 0 NOT NULL,
    created_by text,
    created_by_user uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    expires_at timestamp with time zone,
    beat_at timestamp with time zone,
    CONSTRAINT exports_format_check CHECK ((format = ANY (ARRAY['csv'::text, 'jsonl'::text]))),
    CONSTRAINT exports_status_check CHECK ((status = ANY (ARRAY['QUEUED'::text, 'RUNNING'::text, 'SUCCEEDED'::text, 'FAILED'::text, 'EXPIRED'::text])))
);


--
-- Name: flow_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_counts (
    organization_id uuid NOT NULL,
    visibility text NOT NULL,
    status text NOT NULL,
    n bigint DEFAULT 0 NOT NULL
);


--
-- Name: flow_invitations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_invitations (
    flow_id uuid NOT NULL,
    user_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL
);


--
-- Name: flow_task_statuses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_task_statuses (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    seq bigint NOT NULL,
    organization_id uuid NOT NULL,
    flow_execution_id uuid NOT NULL,
    task_name text NOT NULL,
    status text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT flow_task_statuses_status_check CHECK ((char_length(status) <= 50)),
    CONSTRAINT flow_task_statuses_task_name_check CHECK (((char_length(task_name) >= 1) AND (char_length(task_name) <= 255)))
);


--
-- Name: flow_task_statuses_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.flow_task_statuses ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.flow_task_statuses_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: flow_task_tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_task_tags (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    seq bigint NOT NULL,
    organization_id uuid NOT NULL,
    flow_execution_id uuid NOT NULL,
    task_name text NOT NULL,
    tag text NOT NULL,
    tag_type text NOT NULL,
    tag_metadata jsonb,
    status text DEFAULT 'active'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT flow_task_tags_status_check CHECK ((status = ANY (ARRAY['active'::text, 'deleted'::text]))),
    CONSTRAINT flow_task_tags_tag_check CHECK (((char_length(tag) >= 1) AND (char_length(tag) <= 200))),
    CONSTRAINT flow_task_tags_tag_type_check CHECK (((char_length(tag_type) >= 1) AND (char_length(tag_type) <= 100))),
    CONSTRAINT flow_task_tags_task_name_check CHECK (((char_length(task_name) >= 1) AND (char_length(task_name) <= 200)))
);


--
-- Name: flow_task_tags_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.flow_task_tags ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.flow_task_tags_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: flow_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_versions (
    flow_id uuid NOT NULL,
    version integer NOT NULL,
    organization_id uuid NOT NULL,
    display_name text NOT NULL,
    description text,
    status text DEFAULT 'draft'::text NOT NULL,
    visibility text,
    definition jsonb NOT NULL,
    settings jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    valid boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    saved_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT flow_versions_description_check CHECK ((char_length(description) <= 5000)),
    CONSTRAINT flow_versions_display_name_check CHECK (((char_length(display_name) >= 1) AND (char_length(display_name) <= 255))),
    CONSTRAINT flow_versions_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'published'::text]))),
    CONSTRAINT flow_versions_version_check CHECK ((version >= 1)),
    CONSTRAINT flow_versions_visibility_check CHECK ((visibility = ANY (ARRAY['private'::text, 'organization'::text, 'public'::text])))
);
ALTER TABLE ONLY public.flow_versions ALTER COLUMN definition SET COMPRESSION lz4;


--
-- Name: flow_views; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flow_views (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    flow_id uuid NOT NULL,
    flow_version integer NOT NULL,
    view_name text NOT NULL,
    ordered_tasks text[] DEFAULT '{}'::text[] NOT NULL,
    hidden_tasks text[] DEFAULT '{}'::text[] NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT flow_views_view_name_check CHECK (((char_length(view_name) >= 1) AND (char_length(view_name) <= 255)))
);


--
-- Name: flows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flows (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    created_by uuid,
    latest_version integer DEFAULT 1 NOT NULL,
    executions_started bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    deleted_at timestamp with time zone,
    display_name text,
    description text,
    status text DEFAULT 'draft'::text NOT NULL,
    visibility text DEFAULT 'organization'::text NOT NULL,
    CONSTRAINT flows_latest_version_check CHECK ((latest_version >= 1))
);


--
-- Name: goose_db_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.goose_db_version (
    id integer NOT NULL,
    version_id bigint NOT NULL,
    is_applied boolean NOT NULL,
    tstamp timestamp without time zone DEFAULT now() NOT NULL
);


--
-- Name: goose_db_version_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.goose_db_version ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.goose_db_version_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: human_review_assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.human_review_assignments (
    id uuid DEFAULT public.uuid7() NOT NULL,
    organization_id uuid NOT NULL,
    human_review_task_id uuid NOT NULL,
    user_id uuid NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    review_result boolean,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT human_review_assignments_check CHECK ((((status = 'pending'::text) = (started_at IS NULL)) OR (status = 'cancelled'::text))),
    CONSTRAINT human_review_assignments_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'in_progress'::text, 'completed'::text, 'cancelled'::text])))
);


--
-- Name: human_review_tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.human_review_tasks (
    id uuid DEFAULT public.uuid7() NOT NULL,
    organization_id uuid NOT NULL,
    flow_execution_id uuid NOT NULL,
    target_task_name text NOT NULL,
    target_task_execution_idx integer NOT NULL,
    source_task_name text NOT NULL,
    source_task_execution_idx integer NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    instructions text,
    review_result boolean,
    reviewed_output jsonb,
    completed_at timestamp with time zone,
    completed_by uuid,
    task_metadata jsonb,
    holds_attempt boolean DEFAULT false NOT NULL,
    required_approvals integer DEFAULT 1 NOT NULL,
    approvals integer DEFAULT 0 NOT NULL,
    timeout_at timestamp with time zone,
    on_timeout text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    users_named boolean DEFAULT false NOT NULL,
    CONSTRAINT human_review_tasks_approvals_check CHECK ((approvals >= 0)),
    CONSTRAINT human_review_tasks_check CHECK (((timeout_at IS NULL) = (on_timeout IS NULL))),
    CONSTRAINT human_review_tasks_check1 CHECK (((status = 'completed'::text) = (completed_at IS NOT NULL))),
    CONSTRAINT human_review_tasks_on_timeout_check CHECK ((on_timeout = ANY (ARRAY['approve'::text, 'reject'::text, 'fail'::text]))),
    CONSTRAINT human_review_tasks_required_approvals_check CHECK ((required_approvals >= 1)),
    CONSTRAINT human_review_tasks_source_task_execution_idx_check CHECK ((source_task_execution_idx >= 0)),
    CONSTRAINT human_review_tasks_source_task_name_check CHECK (((char_length(source_task_name) >= 1) AND (char_length(source_task_name) <= 200))),
    CONSTRAINT human_review_tasks_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'in_progress'::text, 'completed'::text]))),
    CONSTRAINT human_review_tasks_target_task_execution_idx_check CHECK ((target_task_execution_idx >= 0)),
    CONSTRAINT human_review_tasks_target_task_name_check CHECK (((char_length(target_task_name) >= 1) AND (char_length(target_task_name) <= 200)))
);


--
-- Name: integrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.integrations (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    flow_id uuid NOT NULL,
    credential_id uuid,
    description text DEFAULT ''::text NOT NULL,
    task_name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT integrations_description_check CHECK ((char_length(description) <= 5000)),
    CONSTRAINT integrations_task_name_check CHECK (((char_length(task_name) >= 1) AND (char_length(task_name) <= 200)))
);


--
-- Name: job_count_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_count_cache (
    app_id uuid NOT NULL,
    filter_hash text NOT NULL,
    counts jsonb NOT NULL,
    counted_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: job_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_counters (
    app_id uuid NOT NULL,
    status text NOT NULL,
    shard smallint NOT NULL,
    n bigint NOT NULL
);


--
-- Name: job_feedback; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_feedback (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    app_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    author uuid,
    message text,
    feedback_tags text[] DEFAULT '{}'::text[] NOT NULL,
    correct boolean,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: job_feedback_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.job_feedback ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_feedback_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: job_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_history (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    organization_id uuid NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    event text NOT NULL,
    actor text,
    from_status text,
    to_status text,
    details jsonb,
    app_id uuid NOT NULL
);


--
-- Name: job_history_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.job_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: mail_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mail_outbox (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid,
    recipient text NOT NULL,
    subject text NOT NULL,
    text_body text NOT NULL,
    html_body text,
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sent_at timestamp with time zone,
    also_to text[] DEFAULT '{}'::text[] NOT NULL,
    cc text[] DEFAULT '{}'::text[] NOT NULL,
    bcc text[] DEFAULT '{}'::text[] NOT NULL,
    message_id text,
    idempotency_key text,
    CONSTRAINT mail_outbox_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'sent'::text, 'logged'::text, 'failed'::text])))
);


--
-- Name: measurement_dataset_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurement_dataset_records (
    dataset_id uuid NOT NULL,
    baseline_id bigint NOT NULL,
    input jsonb NOT NULL,
    response jsonb NOT NULL
);


--
-- Name: measurement_datasets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurement_datasets (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    api_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: measurement_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurement_jobs (
    operation_id uuid NOT NULL,
    dataset_id uuid NOT NULL,
    baseline_id bigint NOT NULL,
    app_id uuid NOT NULL,
    job_id bigint NOT NULL
);


--
-- Name: measurements; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurements (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    api_id uuid,
    metric_name text NOT NULL,
    field_name text DEFAULT '{}'::text NOT NULL,
    dataset_id uuid,
    parameter_set_id uuid,
    value double precision NOT NULL,
    sample_size bigint NOT NULL,
    measured_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT measurements_sample_size_check CHECK ((sample_size >= 0))
);


--
-- Name: measurements_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.measurements ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.measurements_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: measurer_configurations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurer_configurations (
    app_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    enabled boolean DEFAULT false NOT NULL,
    metrics text[] DEFAULT '{}'::text[] NOT NULL,
    fields text[] DEFAULT '{}'::text[] NOT NULL,
    baseline_types text[] DEFAULT '{OWNER,GOLD_WORKFLOW}'::text[] NOT NULL,
    accept_measurement_jobs boolean DEFAULT false NOT NULL,
    onboarding_code bigint,
    measure_interval_hours integer,
    state text DEFAULT 'IDLE'::text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT measurer_configurations_check CHECK (((onboarding_code IS NULL) OR (enabled AND accept_measurement_jobs))),
    CONSTRAINT measurer_configurations_measure_interval_hours_check CHECK (((measure_interval_hours >= 1) AND (measure_interval_hours <= 8760))),
    CONSTRAINT measurer_configurations_onboarding_code_check CHECK ((onboarding_code >= 0)),
    CONSTRAINT measurer_configurations_state_check CHECK ((state = ANY (ARRAY['IDLE'::text, 'CALCULATING'::text, 'READY'::text])))
);


--
-- Name: measurer_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurer_operations (
    id uuid NOT NULL,
    organization_id uuid NOT NULL,
    app_id uuid NOT NULL,
    type text NOT NULL,
    status text DEFAULT 'QUEUED'::text NOT NULL,
    dataset_id uuid,
    parameter_set_id uuid,
    progress double precision DEFAULT 0 NOT NULL,
    error text,
    created_by text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT measurer_operations_status_check CHECK ((status = ANY (ARRAY['QUEUED'::text, 'RUNNING'::text, 'SUCCEEDED'::text, 'FAILED'::text, 'CANCELED'::text]))),
    CONSTRAINT measurer_operations_type_check CHECK ((type = ANY (ARRAY['MEASURE'::text, 'CALIBRATE'::text])))
);


--
-- Name: measurer_thresholds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.measurer_thresholds (
    app_id uuid NOT NULL,
    dataset_id uuid NOT NULL,
    field_name text NOT NULL,
    threshold double precision,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: organizations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.organizations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name public.citext NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT organizations_name_check CHECK (((btrim((name)::text) <> ''::text) AND (char_length((name)::text) <= 200)))
);


--
-- Name: products; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.products (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name public.citext NOT NULL,
    unit text NOT NULL,
    provider text NOT NULL,
    description text,
    estimated_cost_per_unit numeric,
    metadata jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    CONSTRAINT products_description_check CHECK ((char_length(description) <= 1000)),
    CONSTRAINT products_estimated_cost_per_unit_check CHECK ((estimated_cost_per_unit >= (0)::numeric)),
    CONSTRAINT products_name_check CHECK (((char_length((name)::text) >= 1) AND (char_length((name)::text) <= 200))),
    CONSTRAINT products_provider_check CHECK (((char_length(provider) >= 1) AND (char_length(provider) <= 100))),
    CONSTRAINT products_unit_check CHECK (((char_length(unit) >= 1) AND (char_length(unit) <= 50)))
);


--
-- Name: rate_limit_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_limit_counters (
    key text NOT NULL,
    window_start timestamp with time zone NOT NULL,
    count integer NOT NULL
);


--
-- Name: river_job; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_job (
    id bigint NOT NULL,
    state public.river_job_state DEFAULT 'available'::public.river_job_state NOT NULL,
    attempt smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    attempted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    finalized_at timestamp with time zone,
    scheduled_at timestamp with time zone DEFAULT now() NOT NULL,
    priority smallint DEFAULT 1 NOT NULL,
    args jsonb NOT NULL,
    attempted_by text[],
    errors jsonb[],
    kind text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    queue text DEFAULT 'default'::text NOT NULL,
    tags character varying(255)[] DEFAULT '{}'::character varying[] NOT NULL,
    unique_key bytea,
    unique_states bit(8),
    CONSTRAINT finalized_or_finalized_at_null CHECK ((((finalized_at IS NULL) AND (state <> ALL (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))) OR ((finalized_at IS NOT NULL) AND (state = ANY (ARRAY['cancelled'::public.river_job_state, 'completed'::public.river_job_state, 'discarded'::public.river_job_state]))))),
    CONSTRAINT kind_length CHECK (((char_length(kind) > 0) AND (char_length(kind) < 128))),
    CONSTRAINT max_attempts_is_positive CHECK ((max_attempts > 0)),
    CONSTRAINT priority_in_range CHECK (((priority >= 1) AND (priority <= 4))),
    CONSTRAINT queue_length CHECK (((char_length(queue) > 0) AND (char_length(queue) < 128)))
);


--
-- Name: river_job_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_job_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_job_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_job_id_seq OWNED BY public.river_job.id;


--
-- Name: river_leader; Type: TABLE; Schema: public; Owner: -
--

CREATE UNLOGGED TABLE public.river_leader (
    elected_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    leader_id text NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    CONSTRAINT leader_id_length CHECK (((char_length(leader_id) > 0) AND (char_length(leader_id) < 128))),
    CONSTRAINT name_length CHECK ((name = 'default'::text))
);


--
-- Name: river_migration; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_migration (
    line text NOT NULL,
    version bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT line_length CHECK (((char_length(line) > 0) AND (char_length(line) < 128))),
    CONSTRAINT version_gte_1 CHECK ((version >= 1))
);


--
-- Name: river_notification; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_notification (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    payload text NOT NULL,
    topic text NOT NULL,
    CONSTRAINT topic_length CHECK (((length(topic) > 0) AND (length(topic) < 128)))
);


--
-- Name: river_notification_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.river_notification_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: river_notification_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.river_notification_id_seq OWNED BY public.river_notification.id;


--
-- Name: river_queue; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.river_queue (
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    paused_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);


--
-- Name: sso_domains; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sso_domains (
    domain public.citext NOT NULL,
    provider_id text NOT NULL,
    organization_id uuid NOT NULL,
    verification_token text NOT NULL,
    verified_at timestamp with time zone,
    checked_at timestamp with time zone,
    next_check_at timestamp with time zone,
    failed_checks integer DEFAULT 0 NOT NULL
);


--
-- Name: sso_providers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sso_providers (
    id text NOT NULL,
    organization_id uuid NOT NULL,
    type text DEFAULT 'saml'::text NOT NULL,
    metadata_url text,
    metadata_xml text,
    metadata_xml_hash text,
    entity_id text,
    attribute_mapping jsonb,
    is_active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL
);


--
-- Name: task_executions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.task_executions (
    id uuid DEFAULT public.uuid7() NOT NULL,
    organization_id uuid NOT NULL,
    flow_execution_id uuid NOT NULL,
    task_name text NOT NULL,
    task_execution_idx integer NOT NULL,
    status text NOT NULL,
    input jsonb,
    output jsonb,
    error jsonb,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    timeout_at timestamp with time zone,
    wake_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    vars jsonb,
    detail jsonb,
    CONSTRAINT task_executions_check CHECK (((output IS NULL) OR (status = 'completed'::text))),
    CONSTRAINT task_executions_check1 CHECK (((error IS NULL) OR (status = 'failed'::text))),
    CONSTRAINT task_executions_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'failed'::text, 'cancelled'::text]))),
    CONSTRAINT task_executions_task_execution_idx_check CHECK ((task_execution_idx >= 0)),
    CONSTRAINT task_executions_task_name_check CHECK (((char_length(task_name) >= 1) AND (char_length(task_name) <= 200)))
);


--
-- Name: usage_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_records (
    id uuid DEFAULT public.uuid7() NOT NULL,
    organization_id uuid NOT NULL,
    product_id uuid NOT NULL,
    flow_execution_id uuid,
    job_id bigint,
    amount bigint NOT NULL,
    estimated_cost numeric,
    metadata jsonb,
    idempotency_key text,
    request_hash bytea,
    created_by text DEFAULT 'system'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT usage_records_amount_check CHECK ((amount > 0)),
    CONSTRAINT usage_records_estimated_cost_check CHECK ((estimated_cost >= (0)::numeric))
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    organization_id uuid NOT NULL,
    email public.citext NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    role text NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    is_service_account boolean DEFAULT false NOT NULL,
    password_hash text,
    email_confirmed_at timestamp with time zone,
    last_login_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    modified_by text DEFAULT 'system'::text NOT NULL,
    worker_id bigint NOT NULL,
    CONSTRAINT users_first_name_check CHECK (((char_length(first_name) >= 1) AND (char_length(first_name) <= 100))),
    CONSTRAINT users_last_name_check CHECK (((char_length(last_name) >= 1) AND (char_length(last_name) <= 100))),
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['org_admin'::text, 'backoffice'::text, 'app_user'::text, 'integration'::text])))
);


--
-- Name: users_worker_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.users ALTER COLUMN worker_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.users_worker_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: worker_group_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.worker_group_members (
    group_id bigint NOT NULL,
    user_id uuid NOT NULL,
    organization_id uuid NOT NULL,
    added_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: worker_groups; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.worker_groups (
    id bigint NOT NULL,
    organization_id uuid NOT NULL,
    name public.citext NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT worker_groups_name_check CHECK (((btrim((name)::text) <> ''::text) AND (char_length((name)::text) <= 200)))
);


--
-- Name: worker_groups_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.worker_groups ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.worker_groups_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: river_job id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job ALTER COLUMN id SET DEFAULT nextval('public.river_job_id_seq'::regclass);


--
-- Name: river_notification id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification ALTER COLUMN id SET DEFAULT nextval('public.river_notification_id_seq'::regclass);


--
-- Name: api_desired_metrics api_desired_metrics_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_desired_metrics
    ADD CONSTRAINT api_desired_metrics_pkey PRIMARY KEY (api_id);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_token_hash_key UNIQUE (token_hash);


--
-- Name: app_tags app_tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_tags
    ADD CONSTRAINT app_tags_pkey PRIMARY KEY (app_id, tag);


--
-- Name: app_worker_groups app_worker_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_worker_groups
    ADD CONSTRAINT app_worker_groups_pkey PRIMARY KEY (app_id, group_id);


--
-- Name: app_workers app_workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_workers
    ADD CONSTRAINT app_workers_pkey PRIMARY KEY (app_id, user_id);


--
-- Name: apps apps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_pkey PRIMARY KEY (id);


--
-- Name: auth_link_tokens auth_link_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_link_tokens
    ADD CONSTRAINT auth_link_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: auth_refresh_tokens auth_refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: auth_sessions auth_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_pkey PRIMARY KEY (id);


--
-- Name: auth_signing_keys auth_signing_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_signing_keys
    ADD CONSTRAINT auth_signing_keys_pkey PRIMARY KEY (kid);


--
-- Name: baseline_data baseline_data_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.baseline_data
    ADD CONSTRAINT baseline_data_pkey PRIMARY KEY (id);


--
-- Name: bulk_operations bulk_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bulk_operations
    ADD CONSTRAINT bulk_operations_pkey PRIMARY KEY (id);


--
-- Name: chat_messages chat_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_pkey PRIMARY KEY (id);


--
-- Name: conversations conversations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);


--
-- Name: credentials credentials_org_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_org_name_key UNIQUE (organization_id, name);


--
-- Name: credentials credentials_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_pkey PRIMARY KEY (id);


--
-- Name: credit_balances credit_balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_pkey PRIMARY KEY (organization_id, shard);


--
-- Name: credit_grants credit_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_grants
    ADD CONSTRAINT credit_grants_pkey PRIMARY KEY (id);


--
-- Name: document_databases document_databases_database_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_databases
    ADD CONSTRAINT document_databases_database_name_key UNIQUE (database_name);


--
-- Name: document_databases document_databases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_databases
    ADD CONSTRAINT document_databases_pkey PRIMARY KEY (organization_id);


--
-- Name: document_databases document_databases_role_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_databases
    ADD CONSTRAINT document_databases_role_name_key UNIQUE (role_name);


--
-- Name: document_revisions document_revisions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_revisions
    ADD CONSTRAINT document_revisions_pkey PRIMARY KEY (id);


--
-- Name: document_revisions document_revisions_upload_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_revisions
    ADD CONSTRAINT document_revisions_upload_id_key UNIQUE (upload_id);


--
-- Name: document_schemas document_schemas_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_schemas
    ADD CONSTRAINT document_schemas_pkey PRIMARY KEY (organization_id);


--
-- Name: document_schemas document_schemas_role_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_schemas
    ADD CONSTRAINT document_schemas_role_name_key UNIQUE (role_name);


--
-- Name: document_schemas document_schemas_schema_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_schemas
    ADD CONSTRAINT document_schemas_schema_name_key UNIQUE (schema_name);


--
-- Name: document_uploads document_uploads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_uploads
    ADD CONSTRAINT document_uploads_pkey PRIMARY KEY (id);


--
-- Name: documents documents_org_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_org_name_key UNIQUE (organization_id, name);


--
-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);


--
-- Name: email_messages email_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_messages
    ADD CONSTRAINT email_messages_pkey PRIMARY KEY (id);


--
-- Name: email_tasks email_tasks_local_part_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_tasks
    ADD CONSTRAINT email_tasks_local_part_key UNIQUE (local_part);


--
-- Name: email_tasks email_tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_tasks
    ADD CONSTRAINT email_tasks_pkey PRIMARY KEY (id);


--
-- Name: execution_tasks execution_tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.execution_tasks
    ADD CONSTRAINT execution_tasks_pkey PRIMARY KEY (flow_execution_id, task_name);


--
-- Name: exports exports_org_filename_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_org_filename_key UNIQUE (organization_id, filename);


--
-- Name: exports exports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_pkey PRIMARY KEY (id);


--
-- Name: flow_counts flow_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_counts
    ADD CONSTRAINT flow_counts_pkey PRIMARY KEY (organization_id, visibility, status);


--
-- Name: flow_executions flow_executions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_executions
    ADD CONSTRAINT flow_executions_pkey PRIMARY KEY (id);


--
-- Name: flow_invitations flow_invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_invitations
    ADD CONSTRAINT flow_invitations_pkey PRIMARY KEY (flow_id, user_id);


--
-- Name: flow_task_statuses flow_task_statuses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_statuses
    ADD CONSTRAINT flow_task_statuses_pkey PRIMARY KEY (id);


--
-- Name: flow_task_tags flow_task_tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_tags
    ADD CONSTRAINT flow_task_tags_pkey PRIMARY KEY (id);


--
-- Name: flow_versions flow_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_versions
    ADD CONSTRAINT flow_versions_pkey PRIMARY KEY (flow_id, version);


--
-- Name: flow_views flow_views_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_views
    ADD CONSTRAINT flow_views_name_key UNIQUE (flow_id, flow_version, view_name);


--
-- Name: flow_views flow_views_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_views
    ADD CONSTRAINT flow_views_pkey PRIMARY KEY (id);


--
-- Name: flows flows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flows
    ADD CONSTRAINT flows_pkey PRIMARY KEY (id);


--
-- Name: goose_db_version goose_db_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.goose_db_version
    ADD CONSTRAINT goose_db_version_pkey PRIMARY KEY (id);


--
-- Name: human_review_assignments human_review_assignments_human_review_task_id_user_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_assignments
    ADD CONSTRAINT human_review_assignments_human_review_task_id_user_id_key UNIQUE (human_review_task_id, user_id);


--
-- Name: human_review_assignments human_review_assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_assignments
    ADD CONSTRAINT human_review_assignments_pkey PRIMARY KEY (id);


--
-- Name: human_review_tasks human_review_tasks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_tasks
    ADD CONSTRAINT human_review_tasks_pkey PRIMARY KEY (id);


--
-- Name: integrations integrations_flow_task_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integrations
    ADD CONSTRAINT integrations_flow_task_key UNIQUE (flow_id, task_name);


--
-- Name: integrations integrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integrations
    ADD CONSTRAINT integrations_pkey PRIMARY KEY (id);


--
-- Name: job_count_cache job_count_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_count_cache
    ADD CONSTRAINT job_count_cache_pkey PRIMARY KEY (app_id, filter_hash);


--
-- Name: job_counters job_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_counters
    ADD CONSTRAINT job_counters_pkey PRIMARY KEY (app_id, status, shard);


--
-- Name: job_feedback job_feedback_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_feedback
    ADD CONSTRAINT job_feedback_pkey PRIMARY KEY (id);


--
-- Name: job_history job_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_history
    ADD CONSTRAINT job_history_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (app_id, id);


--
-- Name: mail_outbox mail_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT mail_outbox_pkey PRIMARY KEY (id);


--
-- Name: measurement_dataset_records measurement_dataset_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_dataset_records
    ADD CONSTRAINT measurement_dataset_records_pkey PRIMARY KEY (dataset_id, baseline_id);


--
-- Name: measurement_datasets measurement_datasets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_datasets
    ADD CONSTRAINT measurement_datasets_pkey PRIMARY KEY (id);


--
-- Name: measurement_jobs measurement_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_jobs
    ADD CONSTRAINT measurement_jobs_pkey PRIMARY KEY (operation_id, baseline_id);


--
-- Name: measurements measurements_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurements
    ADD CONSTRAINT measurements_pkey PRIMARY KEY (id);


--
-- Name: measurer_configurations measurer_configurations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_configurations
    ADD CONSTRAINT measurer_configurations_pkey PRIMARY KEY (app_id);


--
-- Name: measurer_operations measurer_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_operations
    ADD CONSTRAINT measurer_operations_pkey PRIMARY KEY (id);


--
-- Name: measurer_thresholds measurer_thresholds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_thresholds
    ADD CONSTRAINT measurer_thresholds_pkey PRIMARY KEY (app_id, dataset_id, field_name);


--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);


--
-- Name: products products_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.products
    ADD CONSTRAINT products_name_key UNIQUE (name);


--
-- Name: products products_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (id);


--
-- Name: rate_limit_counters rate_limit_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rate_limit_counters
    ADD CONSTRAINT rate_limit_counters_pkey PRIMARY KEY (key, window_start);


--
-- Name: river_job river_job_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_job
    ADD CONSTRAINT river_job_pkey PRIMARY KEY (id);


--
-- Name: river_leader river_leader_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_leader
    ADD CONSTRAINT river_leader_pkey PRIMARY KEY (name);


--
-- Name: river_migration river_migration_pkey1; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_migration
    ADD CONSTRAINT river_migration_pkey1 PRIMARY KEY (line, version);


--
-- Name: river_notification river_notification_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_notification
    ADD CONSTRAINT river_notification_pkey PRIMARY KEY (id);


--
-- Name: river_queue river_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.river_queue
    ADD CONSTRAINT river_queue_pkey PRIMARY KEY (name);


--
-- Name: sso_domains sso_domains_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_domains
    ADD CONSTRAINT sso_domains_pkey PRIMARY KEY (provider_id, domain);


--
-- Name: sso_providers sso_providers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_providers
    ADD CONSTRAINT sso_providers_pkey PRIMARY KEY (id);


--
-- Name: task_executions task_executions_attempt_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_executions
    ADD CONSTRAINT task_executions_attempt_key UNIQUE (flow_execution_id, task_name, task_execution_idx);


--
-- Name: task_executions task_executions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_executions
    ADD CONSTRAINT task_executions_pkey PRIMARY KEY (id);


--
-- Name: usage_records usage_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_records
    ADD CONSTRAINT usage_records_pkey PRIMARY KEY (id);


--
-- Name: users users_organization_id_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_organization_id_email_key UNIQUE (organization_id, email);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: users users_worker_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_worker_id_key UNIQUE (worker_id);


--
-- Name: worker_group_members worker_group_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_group_members
    ADD CONSTRAINT worker_group_members_pkey PRIMARY KEY (group_id, user_id);


--
-- Name: worker_groups worker_groups_organization_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_groups
    ADD CONSTRAINT worker_groups_organization_id_name_key UNIQUE (organization_id, name);


--
-- Name: worker_groups worker_groups_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_groups
    ADD CONSTRAINT worker_groups_pkey PRIMARY KEY (id);


--
-- Name: api_keys_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_org_idx ON public.api_keys USING btree (organization_id, created_at DESC);


--
-- Name: app_worker_groups_group_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX app_worker_groups_group_idx ON public.app_worker_groups USING btree (group_id);


--
-- Name: app_workers_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX app_workers_user_idx ON public.app_workers USING btree (user_id);


--
-- Name: apps_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX apps_org_idx ON public.apps USING btree (organization_id, id);


--
-- Name: apps_org_name_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX apps_org_name_key ON public.apps USING btree (organization_id, lower(name));


--
-- Name: auth_link_tokens_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_link_tokens_user_idx ON public.auth_link_tokens USING btree (user_id, kind) WHERE (used_at IS NULL);


--
-- Name: auth_refresh_tokens_session_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_refresh_tokens_session_idx ON public.auth_refresh_tokens USING btree (session_id);


--
-- Name: auth_sessions_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX auth_sessions_user_idx ON public.auth_sessions USING btree (user_id) WHERE (revoked_at IS NULL);


--
-- Name: baseline_data_api_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX baseline_data_api_idx ON public.baseline_data USING btree (api_id, id);


--
-- Name: bulk_operations_app_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bulk_operations_app_idx ON public.bulk_operations USING btree (app_id, created_at DESC);


--
-- Name: bulk_operations_unfinished_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX bulk_operations_unfinished_idx ON public.bulk_operations USING btree (beat_at) WHERE (status = ANY (ARRAY['QUEUED'::text, 'RUNNING'::text]));


--
-- Name: chat_messages_conversation_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chat_messages_conversation_idx ON public.chat_messages USING btree (conversation_id, created_at, id);


--
-- Name: conversations_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_user_idx ON public.conversations USING btree (organization_id, user_id, created_at DESC, id);


--
-- Name: credentials_org_provider_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credentials_org_provider_idx ON public.credentials USING btree (organization_id, provider, name, id);


--
-- Name: credit_grants_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX credit_grants_org_idx ON public.credit_grants USING btree (organization_id, created_at DESC);


--
-- Name: document_revisions_document_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_revisions_document_idx ON public.document_revisions USING btree (document_id, created_at);


--
-- Name: document_uploads_document_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_uploads_document_idx ON public.document_uploads USING btree (document_id);


--
-- Name: document_uploads_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_uploads_pending_idx ON public.document_uploads USING btree (expires_at) WHERE (completed_at IS NULL);


--
-- Name: documents_org_updated_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_org_updated_idx ON public.documents USING btree (organization_id, updated_at DESC, id);


--
-- Name: email_messages_once_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX email_messages_once_idx ON public.email_messages USING btree (email_task_id, message_id, content_digest) WHERE (message_id IS NOT NULL);


--
-- Name: email_messages_task_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_messages_task_idx ON public.email_messages USING btree (email_task_id, received_at);


--
-- Name: email_tasks_dedup_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX email_tasks_dedup_idx ON public.email_tasks USING btree (organization_id, flow_id, task_name) WHERE ((status = 'active'::text) AND (deleted_at IS NULL) AND (flow_id IS NOT NULL) AND (task_name IS NOT NULL));


--
-- Name: email_tasks_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX email_tasks_org_idx ON public.email_tasks USING btree (organization_id, created_at DESC, id) WHERE (deleted_at IS NULL);


--
-- Name: exports_app_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_app_idx ON public.exports USING btree (app_id, created_at);


--
-- Name: exports_expiry_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_expiry_idx ON public.exports USING btree (expires_at) WHERE (status = 'SUCCEEDED'::text);


--
-- Name: exports_unfinished_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX exports_unfinished_idx ON public.exports USING btree (beat_at) WHERE (status = ANY (ARRAY['QUEUED'::text, 'RUNNING'::text]));


--
-- Name: flow_executions_flow_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_executions_flow_idx ON public.flow_executions USING btree (flow_id, created_at DESC);


--
-- Name: flow_executions_job_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_executions_job_idx ON public.flow_executions USING btree (job_app_id, job_id) WHERE (job_id IS NOT NULL);


--
-- Name: flow_executions_list_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_executions_list_idx ON public.flow_executions USING btree (organization_id, created_at DESC, id DESC) WHERE (deleted_at IS NULL);


--
-- Name: flow_executions_live_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_executions_live_idx ON public.flow_executions USING btree (flow_id) WHERE (deleted_at IS NULL);


--
-- Name: flow_executions_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_executions_org_idx ON public.flow_executions USING btree (organization_id, created_at DESC);


--
-- Name: flow_invitations_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_invitations_user_idx ON public.flow_invitations USING btree (user_id);


--
-- Name: flow_task_statuses_exec_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_task_statuses_exec_idx ON public.flow_task_statuses USING btree (flow_execution_id, task_name, seq);


--
-- Name: flow_task_tags_active_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX flow_task_tags_active_key ON public.flow_task_tags USING btree (flow_execution_id, task_name, tag, tag_type, COALESCE(tag_metadata, 'null'::jsonb)) WHERE (status = 'active'::text);


--
-- Name: flow_task_tags_exec_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_task_tags_exec_idx ON public.flow_task_tags USING btree (flow_execution_id, created_at, seq) WHERE (status = 'active'::text);


--
-- Name: flow_task_tags_org_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_task_tags_org_created_idx ON public.flow_task_tags USING btree (organization_id, created_at, seq) WHERE (status = 'active'::text);


--
-- Name: flow_task_tags_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_task_tags_org_idx ON public.flow_task_tags USING btree (organization_id, tag, created_at, seq) WHERE (status = 'active'::text);


--
-- Name: flow_views_default_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX flow_views_default_key ON public.flow_views USING btree (flow_id, flow_version) WHERE is_default;


--
-- Name: flow_views_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flow_views_org_idx ON public.flow_views USING btree (organization_id, flow_id, flow_version DESC);


--
-- Name: flows_creator_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flows_creator_idx ON public.flows USING btree (created_by) WHERE ((deleted_at IS NULL) AND (visibility = 'private'::text));


--
-- Name: flows_list_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flows_list_idx ON public.flows USING btree (organization_id, updated_at DESC, id DESC) INCLUDE (visibility, status, created_by) WHERE (deleted_at IS NULL);


--
-- Name: flows_public_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flows_public_idx ON public.flows USING btree (updated_at DESC, id DESC) WHERE ((deleted_at IS NULL) AND (visibility = 'public'::text));


--
-- Name: flows_search_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX flows_search_idx ON public.flows USING gin (lower(((COALESCE(display_name, ''::text) || ' '::text) || COALESCE(description, ''::text))) public.gin_trgm_ops) WHERE (deleted_at IS NULL);


--
-- Name: human_review_assignments_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX human_review_assignments_user_idx ON public.human_review_assignments USING btree (user_id, created_at DESC, id DESC);


--
-- Name: human_review_assignments_user_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX human_review_assignments_user_status_idx ON public.human_review_assignments USING btree (user_id, status, created_at DESC, id DESC);


--
-- Name: human_review_tasks_exec_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX human_review_tasks_exec_idx ON public.human_review_tasks USING btree (flow_execution_id);


--
-- Name: human_review_tasks_list_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX human_review_tasks_list_idx ON public.human_review_tasks USING btree (organization_id, created_at DESC, id DESC);


--
-- Name: human_review_tasks_open_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX human_review_tasks_open_key ON public.human_review_tasks USING btree (flow_execution_id, target_task_name, target_task_execution_idx) WHERE (status <> 'completed'::text);


--
-- Name: integrations_credential_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX integrations_credential_idx ON public.integrations USING btree (credential_id) WHERE (credential_id IS NOT NULL);


--
-- Name: integrations_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX integrations_org_idx ON public.integrations USING btree (organization_id, created_at DESC, id);


--
-- Name: job_feedback_job_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_feedback_job_idx ON public.job_feedback USING btree (job_id, created_at DESC);


--
-- Name: job_feedback_verdict_author_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_feedback_verdict_author_idx ON public.job_feedback USING btree (app_id, author) WHERE (correct IS NOT NULL);


--
-- Name: job_history_job_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_history_job_idx ON public.job_history USING btree (job_id, id);


--
-- Name: job_history_labeling_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_history_labeling_idx ON public.job_history USING btree (app_id, at) WHERE (event = ANY (ARRAY['LABELED'::text, 'RELABELED'::text, 'EDITED'::text, 'REVIEWED'::text]));


--
-- Name: jobs_app_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_app_created_idx ON public.jobs USING btree (app_id, created_at, id);


--
-- Name: jobs_app_status_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_app_status_id_idx ON public.jobs USING btree (app_id, status, id);


--
-- Name: jobs_assigned_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_assigned_idx ON public.jobs USING btree (app_id, assigned_to) WHERE (assigned_to IS NOT NULL);


--
-- Name: jobs_execution_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_execution_idx ON public.jobs USING btree (flow_execution_id) WHERE (flow_execution_id IS NOT NULL);


--
-- Name: jobs_expiry_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_expiry_idx ON public.jobs USING btree (expires_at) WHERE ((expires_at IS NOT NULL) AND (status = ANY (ARRAY['PENDING'::text, 'SCHEDULED'::text, 'IN_PROGRESS'::text, 'SUSPENDED'::text])));


--
-- Name: jobs_label_queue_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_label_queue_idx ON public.jobs USING btree (app_id, priority DESC, id) WHERE (status = ANY (ARRAY['SCHEDULED'::text, 'SUSPENDED'::text]));


--
-- Name: jobs_labeled_by_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_labeled_by_idx ON public.jobs USING btree (app_id, labeled_by) WHERE (labeled_by IS NOT NULL);


--
-- Name: jobs_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_pending_idx ON public.jobs USING btree (app_id, priority DESC, id) WHERE (status = 'PENDING'::text);


--
-- Name: jobs_tags_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_tags_idx ON public.jobs USING gin (tags);


--
-- Name: jobs_with_feedback_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_with_feedback_idx ON public.jobs USING btree (app_id, id) WHERE (feedback_count > 0);


--
-- Name: mail_outbox_idempotency_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX mail_outbox_idempotency_key ON public.mail_outbox USING btree (idempotency_key) WHERE (idempotency_key IS NOT NULL);


--
-- Name: mail_outbox_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mail_outbox_org_idx ON public.mail_outbox USING btree (organization_id, created_at DESC);


--
-- Name: measurement_jobs_dataset_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX measurement_jobs_dataset_idx ON public.measurement_jobs USING btree (dataset_id, job_id);


--
-- Name: measurements_api_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX measurements_api_idx ON public.measurements USING btree (api_id, metric_name, field_name, measured_at DESC);


--
-- Name: measurements_app_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX measurements_app_idx ON public.measurements USING btree (app_id, metric_name, field_name, measured_at DESC);


--
-- Name: measurer_operations_app_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX measurer_operations_app_idx ON public.measurer_operations USING btree (app_id, created_at DESC);


--
-- Name: organizations_name_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX organizations_name_key ON public.organizations USING btree (name);


--
-- Name: river_job_args_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_args_index ON public.river_job USING gin (args);


--
-- Name: river_job_kind; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_kind ON public.river_job USING btree (kind);


--
-- Name: river_job_metadata_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_metadata_index ON public.river_job USING gin (metadata);


--
-- Name: river_job_prioritized_fetching_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_prioritized_fetching_index ON public.river_job USING btree (state, queue, priority, scheduled_at, id);


--
-- Name: river_job_state_and_finalized_at_index; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_job_state_and_finalized_at_index ON public.river_job USING btree (state, finalized_at) WHERE (finalized_at IS NOT NULL);


--
-- Name: river_job_unique_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX river_job_unique_idx ON public.river_job USING btree (unique_key) WHERE ((unique_key IS NOT NULL) AND (unique_states IS NOT NULL) AND public.river_job_state_in_bitmask(unique_states, state));


--
-- Name: river_notification_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_created_at_idx ON public.river_notification USING btree (created_at);


--
-- Name: river_notification_topic_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX river_notification_topic_id_idx ON public.river_notification USING btree (topic, id);


--
-- Name: sso_domains_domain_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sso_domains_domain_idx ON public.sso_domains USING btree (domain);


--
-- Name: sso_domains_next_check_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sso_domains_next_check_idx ON public.sso_domains USING btree (next_check_at) WHERE (verified_at IS NOT NULL);


--
-- Name: sso_domains_provider_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sso_domains_provider_idx ON public.sso_domains USING btree (provider_id);


--
-- Name: sso_domains_verified_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX sso_domains_verified_idx ON public.sso_domains USING btree (domain) WHERE (verified_at IS NOT NULL);


--
-- Name: sso_providers_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sso_providers_org_idx ON public.sso_providers USING btree (organization_id, created_at);


--
-- Name: task_executions_list_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_executions_list_idx ON public.task_executions USING btree (flow_execution_id, created_at DESC, task_execution_idx DESC);


--
-- Name: task_executions_overdue_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_executions_overdue_idx ON public.task_executions USING btree (timeout_at) WHERE ((status = 'running'::text) AND (timeout_at IS NOT NULL));


--
-- Name: task_executions_waiting_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX task_executions_waiting_idx ON public.task_executions USING btree (organization_id, created_at, id) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]));


--
-- Name: usage_records_execution_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX usage_records_execution_idx ON public.usage_records USING btree (flow_execution_id) WHERE (flow_execution_id IS NOT NULL);


--
-- Name: usage_records_idempotency_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX usage_records_idempotency_key ON public.usage_records USING btree (organization_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);


--
-- Name: usage_records_org_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX usage_records_org_idx ON public.usage_records USING btree (organization_id, created_at DESC);


--
-- Name: users_email_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX users_email_idx ON public.users USING btree (email);


--
-- Name: worker_group_members_user_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX worker_group_members_user_idx ON public.worker_group_members USING btree (user_id);


--
-- Name: api_keys api_keys_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER api_keys_access_changed AFTER DELETE OR UPDATE OF organization_id, user_id, service_account_id, token_hash, revoked_at OR TRUNCATE ON public.api_keys FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: api_keys api_keys_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER api_keys_updated_at BEFORE UPDATE OF name, description, revoked_at ON public.api_keys FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();


--
-- Name: app_worker_groups app_worker_groups_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER app_worker_groups_access_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.app_worker_groups FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: app_workers app_workers_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER app_workers_access_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.app_workers FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: apps apps_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER apps_access_changed AFTER DELETE OR UPDATE OR TRUNCATE ON public.apps FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: auth_sessions auth_sessions_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER auth_sessions_access_changed AFTER DELETE OR UPDATE OF user_id, organization_id, revoked_at OR TRUNCATE ON public.auth_sessions FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: credentials credentials_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER credentials_updated_at BEFORE UPDATE OF name, credential_type, sealed_secret ON public.credentials FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();


--
-- Name: flow_versions flow_versions_latest; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER flow_versions_latest AFTER INSERT ON public.flow_versions REFERENCING NEW TABLE AS new_versions FOR EACH STATEMENT EXECUTE FUNCTION public.flows_follow_latest_version();


--
-- Name: flow_versions flow_versions_latest_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER flow_versions_latest_update AFTER UPDATE ON public.flow_versions REFERENCING NEW TABLE AS new_versions FOR EACH STATEMENT EXECUTE FUNCTION public.flows_follow_latest_version();


--
-- Name: flows flows_counted_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER flows_counted_delete AFTER DELETE ON public.flows REFERENCING OLD TABLE AS old_flows FOR EACH STATEMENT EXECUTE FUNCTION public.flows_count();


--
-- Name: flows flows_counted_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER flows_counted_insert AFTER INSERT ON public.flows REFERENCING NEW TABLE AS new_flows FOR EACH STATEMENT EXECUTE FUNCTION public.flows_count();


--
-- Name: flows flows_counted_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER flows_counted_update AFTER UPDATE ON public.flows REFERENCING OLD TABLE AS old_flows NEW TABLE AS new_flows FOR EACH STATEMENT EXECUTE FUNCTION public.flows_count();


--
-- Name: flow_executions human_review_cancel_on_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER human_review_cancel_on_delete AFTER UPDATE OF status ON public.flow_executions FOR EACH ROW WHEN (((new.status = ANY (ARRAY['deleted'::text, 'failed'::text])) AND (old.status <> ALL (ARRAY['deleted'::text, 'failed'::text])))) EXECUTE FUNCTION public.human_review_cancel_on_delete();


--
-- Name: flow_executions job_follows_execution; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER job_follows_execution AFTER UPDATE OF status ON public.flow_executions FOR EACH ROW WHEN (((new.job_id IS NOT NULL) AND (old.status IS DISTINCT FROM new.status) AND (NOT ((old.status = ANY (ARRAY['running'::text, 'in_progress'::text])) AND (new.status = ANY (ARRAY['running'::text, 'in_progress'::text])))))) EXECUTE FUNCTION public.job_follows_execution();


--
-- Name: jobs jobs_count_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_delete AFTER DELETE ON public.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.job_counters_delete();


--
-- Name: jobs jobs_count_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_insert AFTER INSERT ON public.jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.job_counters_insert();


--
-- Name: jobs jobs_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_count_update AFTER UPDATE ON public.jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.job_counters_update();


--
-- Name: organizations organizations_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER organizations_access_changed AFTER DELETE OR UPDATE OF is_active OR TRUNCATE ON public.organizations FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: sso_providers sso_providers_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER sso_providers_updated_at BEFORE UPDATE ON public.sso_providers FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();


--
-- Name: users users_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_access_changed AFTER DELETE OR UPDATE OF organization_id, email, role, is_active, is_service_account OR TRUNCATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: users users_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER users_updated_at BEFORE UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();


--
-- Name: worker_group_members worker_group_members_access_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER worker_group_members_access_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.worker_group_members FOR EACH STATEMENT EXECUTE FUNCTION public.notify_access_change();


--
-- Name: api_desired_metrics api_desired_metrics_api_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_desired_metrics
    ADD CONSTRAINT api_desired_metrics_api_id_fkey FOREIGN KEY (api_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: api_desired_metrics api_desired_metrics_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_desired_metrics
    ADD CONSTRAINT api_desired_metrics_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: api_keys api_keys_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: api_keys api_keys_service_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_service_account_id_fkey FOREIGN KEY (service_account_id) REFERENCES public.users(id);


--
-- Name: api_keys api_keys_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: app_tags app_tags_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_tags
    ADD CONSTRAINT app_tags_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: app_tags app_tags_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_tags
    ADD CONSTRAINT app_tags_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: app_worker_groups app_worker_groups_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_worker_groups
    ADD CONSTRAINT app_worker_groups_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: app_worker_groups app_worker_groups_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_worker_groups
    ADD CONSTRAINT app_worker_groups_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.worker_groups(id) ON DELETE CASCADE;


--
-- Name: app_worker_groups app_worker_groups_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_worker_groups
    ADD CONSTRAINT app_worker_groups_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: app_workers app_workers_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_workers
    ADD CONSTRAINT app_workers_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: app_workers app_workers_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_workers
    ADD CONSTRAINT app_workers_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: app_workers app_workers_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.app_workers
    ADD CONSTRAINT app_workers_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: apps apps_api_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_api_id_fkey FOREIGN KEY (api_id) REFERENCES public.flows(id);


--
-- Name: apps apps_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: apps apps_owner_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES public.users(id);


--
-- Name: auth_link_tokens auth_link_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_link_tokens
    ADD CONSTRAINT auth_link_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: auth_refresh_tokens auth_refresh_tokens_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_refresh_tokens
    ADD CONSTRAINT auth_refresh_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.auth_sessions(id) ON DELETE CASCADE;


--
-- Name: auth_sessions auth_sessions_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: auth_sessions auth_sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auth_sessions
    ADD CONSTRAINT auth_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: baseline_data baseline_data_api_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.baseline_data
    ADD CONSTRAINT baseline_data_api_id_fkey FOREIGN KEY (api_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: baseline_data baseline_data_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.baseline_data
    ADD CONSTRAINT baseline_data_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: bulk_operations bulk_operations_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bulk_operations
    ADD CONSTRAINT bulk_operations_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: bulk_operations bulk_operations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bulk_operations
    ADD CONSTRAINT bulk_operations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: chat_messages chat_messages_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chat_messages
    ADD CONSTRAINT chat_messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id) ON DELETE CASCADE;


--
-- Name: conversations conversations_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id);


--
-- Name: conversations conversations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: credentials credentials_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: credentials credentials_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credentials
    ADD CONSTRAINT credentials_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id);


--
-- Name: credit_balances credit_balances_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_balances
    ADD CONSTRAINT credit_balances_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: credit_grants credit_grants_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.credit_grants
    ADD CONSTRAINT credit_grants_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: document_databases document_databases_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_databases
    ADD CONSTRAINT document_databases_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: document_revisions document_revisions_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_revisions
    ADD CONSTRAINT document_revisions_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;


--
-- Name: document_revisions document_revisions_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_revisions
    ADD CONSTRAINT document_revisions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: document_revisions document_revisions_upload_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_revisions
    ADD CONSTRAINT document_revisions_upload_id_fkey FOREIGN KEY (upload_id) REFERENCES public.document_uploads(id) ON DELETE CASCADE;


--
-- Name: document_schemas document_schemas_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_schemas
    ADD CONSTRAINT document_schemas_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: document_uploads document_uploads_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_uploads
    ADD CONSTRAINT document_uploads_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;


--
-- Name: document_uploads document_uploads_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_uploads
    ADD CONSTRAINT document_uploads_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: documents documents_credential_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_credential_id_fkey FOREIGN KEY (credential_id) REFERENCES public.credentials(id) ON DELETE RESTRICT;


--
-- Name: documents documents_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: documents documents_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: email_messages email_messages_email_task_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_messages
    ADD CONSTRAINT email_messages_email_task_id_fkey FOREIGN KEY (email_task_id) REFERENCES public.email_tasks(id);


--
-- Name: email_messages email_messages_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_messages
    ADD CONSTRAINT email_messages_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: email_tasks email_tasks_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_tasks
    ADD CONSTRAINT email_tasks_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id);


--
-- Name: email_tasks email_tasks_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_tasks
    ADD CONSTRAINT email_tasks_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: email_tasks email_tasks_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_tasks
    ADD CONSTRAINT email_tasks_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: execution_tasks execution_tasks_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.execution_tasks
    ADD CONSTRAINT execution_tasks_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) ON DELETE CASCADE;


--
-- Name: execution_tasks execution_tasks_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.execution_tasks
    ADD CONSTRAINT execution_tasks_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: exports exports_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: exports exports_created_by_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_created_by_user_fkey FOREIGN KEY (created_by_user) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: exports exports_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.exports
    ADD CONSTRAINT exports_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_counts flow_counts_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_counts
    ADD CONSTRAINT flow_counts_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_executions flow_executions_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_executions
    ADD CONSTRAINT flow_executions_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id);


--
-- Name: flow_executions flow_executions_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_executions
    ADD CONSTRAINT flow_executions_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id);


--
-- Name: flow_executions flow_executions_job_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_executions
    ADD CONSTRAINT flow_executions_job_fkey FOREIGN KEY (job_app_id, job_id) REFERENCES public.jobs(app_id, id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;


--
-- Name: flow_executions flow_executions_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_executions
    ADD CONSTRAINT flow_executions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_invitations flow_invitations_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_invitations
    ADD CONSTRAINT flow_invitations_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: flow_invitations flow_invitations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_invitations
    ADD CONSTRAINT flow_invitations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_invitations flow_invitations_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_invitations
    ADD CONSTRAINT flow_invitations_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: flow_task_statuses flow_task_statuses_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_statuses
    ADD CONSTRAINT flow_task_statuses_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) ON DELETE CASCADE;


--
-- Name: flow_task_statuses flow_task_statuses_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_statuses
    ADD CONSTRAINT flow_task_statuses_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_task_tags flow_task_tags_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_tags
    ADD CONSTRAINT flow_task_tags_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) ON DELETE CASCADE;


--
-- Name: flow_task_tags flow_task_tags_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_task_tags
    ADD CONSTRAINT flow_task_tags_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_versions flow_versions_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_versions
    ADD CONSTRAINT flow_versions_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: flow_versions flow_versions_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_versions
    ADD CONSTRAINT flow_versions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flow_views flow_views_flow_id_flow_version_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_views
    ADD CONSTRAINT flow_views_flow_id_flow_version_fkey FOREIGN KEY (flow_id, flow_version) REFERENCES public.flow_versions(flow_id, version) ON DELETE CASCADE;


--
-- Name: flow_views flow_views_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flow_views
    ADD CONSTRAINT flow_views_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: flows flows_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flows
    ADD CONSTRAINT flows_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id);


--
-- Name: flows flows_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flows
    ADD CONSTRAINT flows_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: human_review_assignments human_review_assignments_human_review_task_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_assignments
    ADD CONSTRAINT human_review_assignments_human_review_task_id_fkey FOREIGN KEY (human_review_task_id) REFERENCES public.human_review_tasks(id) ON DELETE CASCADE;


--
-- Name: human_review_assignments human_review_assignments_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_assignments
    ADD CONSTRAINT human_review_assignments_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: human_review_assignments human_review_assignments_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_assignments
    ADD CONSTRAINT human_review_assignments_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: human_review_tasks human_review_tasks_completed_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_tasks
    ADD CONSTRAINT human_review_tasks_completed_by_fkey FOREIGN KEY (completed_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: human_review_tasks human_review_tasks_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_tasks
    ADD CONSTRAINT human_review_tasks_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) ON DELETE CASCADE;


--
-- Name: human_review_tasks human_review_tasks_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.human_review_tasks
    ADD CONSTRAINT human_review_tasks_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: integrations integrations_credential_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integrations
    ADD CONSTRAINT integrations_credential_id_fkey FOREIGN KEY (credential_id) REFERENCES public.credentials(id) ON DELETE RESTRICT;


--
-- Name: integrations integrations_flow_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integrations
    ADD CONSTRAINT integrations_flow_id_fkey FOREIGN KEY (flow_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: integrations integrations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.integrations
    ADD CONSTRAINT integrations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: job_count_cache job_count_cache_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_count_cache
    ADD CONSTRAINT job_count_cache_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: job_counters job_counters_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_counters
    ADD CONSTRAINT job_counters_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: job_feedback job_feedback_author_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_feedback
    ADD CONSTRAINT job_feedback_author_fkey FOREIGN KEY (author) REFERENCES public.users(id);


--
-- Name: job_feedback job_feedback_job_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_feedback
    ADD CONSTRAINT job_feedback_job_fkey FOREIGN KEY (app_id, job_id) REFERENCES public.jobs(app_id, id) ON DELETE CASCADE;


--
-- Name: job_feedback job_feedback_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_feedback
    ADD CONSTRAINT job_feedback_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: job_history job_history_job_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_history
    ADD CONSTRAINT job_history_job_fkey FOREIGN KEY (app_id, job_id) REFERENCES public.jobs(app_id, id) ON DELETE CASCADE;


--
-- Name: job_history job_history_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_history
    ADD CONSTRAINT job_history_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: jobs jobs_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: jobs jobs_assigned_to_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_assigned_to_fkey FOREIGN KEY (assigned_to) REFERENCES public.users(id);


--
-- Name: jobs jobs_created_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_created_by_fkey FOREIGN KEY (created_by) REFERENCES public.users(id);


--
-- Name: jobs jobs_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: jobs jobs_labeled_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_labeled_by_fkey FOREIGN KEY (labeled_by) REFERENCES public.users(id);


--
-- Name: jobs jobs_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: mail_outbox mail_outbox_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT mail_outbox_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: measurement_dataset_records measurement_dataset_records_dataset_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_dataset_records
    ADD CONSTRAINT measurement_dataset_records_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.measurement_datasets(id) ON DELETE CASCADE;


--
-- Name: measurement_datasets measurement_datasets_api_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_datasets
    ADD CONSTRAINT measurement_datasets_api_id_fkey FOREIGN KEY (api_id) REFERENCES public.flows(id) ON DELETE CASCADE;


--
-- Name: measurement_datasets measurement_datasets_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_datasets
    ADD CONSTRAINT measurement_datasets_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: measurement_datasets measurement_datasets_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_datasets
    ADD CONSTRAINT measurement_datasets_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: measurement_jobs measurement_jobs_operation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurement_jobs
    ADD CONSTRAINT measurement_jobs_operation_id_fkey FOREIGN KEY (operation_id) REFERENCES public.measurer_operations(id) ON DELETE CASCADE;


--
-- Name: measurements measurements_api_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurements
    ADD CONSTRAINT measurements_api_id_fkey FOREIGN KEY (api_id) REFERENCES public.flows(id) ON DELETE SET NULL;


--
-- Name: measurements measurements_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurements
    ADD CONSTRAINT measurements_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: measurements measurements_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurements
    ADD CONSTRAINT measurements_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: measurer_configurations measurer_configurations_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_configurations
    ADD CONSTRAINT measurer_configurations_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: measurer_configurations measurer_configurations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_configurations
    ADD CONSTRAINT measurer_configurations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: measurer_operations measurer_operations_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_operations
    ADD CONSTRAINT measurer_operations_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: measurer_operations measurer_operations_dataset_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_operations
    ADD CONSTRAINT measurer_operations_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.measurement_datasets(id) ON DELETE SET NULL;


--
-- Name: measurer_operations measurer_operations_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_operations
    ADD CONSTRAINT measurer_operations_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: measurer_thresholds measurer_thresholds_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_thresholds
    ADD CONSTRAINT measurer_thresholds_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;


--
-- Name: measurer_thresholds measurer_thresholds_dataset_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.measurer_thresholds
    ADD CONSTRAINT measurer_thresholds_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.measurement_datasets(id) ON DELETE CASCADE;


--
-- Name: sso_domains sso_domains_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_domains
    ADD CONSTRAINT sso_domains_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: sso_domains sso_domains_provider_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_domains
    ADD CONSTRAINT sso_domains_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES public.sso_providers(id) ON DELETE CASCADE;


--
-- Name: sso_providers sso_providers_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sso_providers
    ADD CONSTRAINT sso_providers_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: task_executions task_executions_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_executions
    ADD CONSTRAINT task_executions_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id) ON DELETE CASCADE;


--
-- Name: task_executions task_executions_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.task_executions
    ADD CONSTRAINT task_executions_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: usage_records usage_records_flow_execution_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_records
    ADD CONSTRAINT usage_records_flow_execution_id_fkey FOREIGN KEY (flow_execution_id) REFERENCES public.flow_executions(id);


--
-- Name: usage_records usage_records_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_records
    ADD CONSTRAINT usage_records_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: usage_records usage_records_product_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_records
    ADD CONSTRAINT usage_records_product_id_fkey FOREIGN KEY (product_id) REFERENCES public.products(id);


--
-- Name: users users_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: worker_group_members worker_group_members_group_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_group_members
    ADD CONSTRAINT worker_group_members_group_id_fkey FOREIGN KEY (group_id) REFERENCES public.worker_groups(id) ON DELETE CASCADE;


--
-- Name: worker_group_members worker_group_members_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_group_members
    ADD CONSTRAINT worker_group_members_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);


--
-- Name: worker_group_members worker_group_members_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_group_members
    ADD CONSTRAINT worker_group_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: worker_groups worker_groups_organization_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.worker_groups
    ADD CONSTRAINT worker_groups_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES public.organizations(id);
