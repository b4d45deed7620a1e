-- +goose Up
-- The /v1 label queue keeps the review rule (00098, internal/engine/reviewrule): a job whose execution
-- waits for a review is offered only to a caller who may complete that review, so a labeler never leases
-- a job reserved for the review's named users. label_lease (00027, whose comments explain the rest) takes
-- p_admin, whether the caller administers the organization, and passes over the jobs the rule keeps from
-- the caller; with p_job such a job is not handed out (no row). `remaining` still counts the queue's
-- free jobs, reserved ones included: counting per caller would walk the queue the counters avoid.
DROP FUNCTION label_lease(uuid, uuid, uuid, text, int, boolean, boolean, bigint, timestamptz, timestamptz);
-- +goose StatementBegin
CREATE FUNCTION label_lease(p_org uuid, p_app uuid, p_user uuid, p_actor text, p_minutes int,
  p_suspended_only boolean, p_enabled boolean, p_job bigint, p_from timestamptz, p_to timestamptz, p_admin boolean)
RETURNS TABLE (job jobs, holder text, labeler text, remaining bigint) LANGUAGE plpgsql AS $$
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
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION label_lease(uuid, uuid, uuid, text, int, boolean, boolean, bigint, timestamptz, timestamptz, boolean);
-- +goose StatementBegin
CREATE FUNCTION label_lease(p_org uuid, p_app uuid, p_user uuid, p_actor text, p_minutes int,
  p_suspended_only boolean, p_enabled boolean, p_job bigint, p_from timestamptz, p_to timestamptz)
RETURNS TABLE (job jobs, holder text, labeler text, remaining bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_status text;
  v_user uuid;         -- who held the job before this lease
  v_lock timestamptz;  -- and until when
  v_row jobs;
BEGIN
  SET LOCAL synchronous_commit = off;
  PERFORM pg_advisory_xact_lock(hashtextextended('label:' || p_app::text || ':' || p_user::text, 0));
  IF p_job IS NOT NULL THEN
    SELECT j.id, j.status, j.assigned_to, j.lock_expires_at INTO v_id, v_status, v_user, v_lock
    FROM jobs j WHERE j.app_id = p_app AND j.id = p_job AND j.organization_id = p_org FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'job % not found', p_job USING ERRCODE = 'no_data_found';
    END IF;
    IF NOT p_enabled OR v_status NOT IN ('SCHEDULED', 'SUSPENDED') OR (p_suspended_only AND v_status <> 'SUSPENDED') THEN
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
    ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE;
    IF NOT FOUND AND p_from IS NULL AND p_to IS NULL THEN
      SELECT j.id, j.assigned_to, j.lock_expires_at INTO v_id, v_user, v_lock
      FROM jobs j
      WHERE j.app_id = p_app AND j.organization_id = p_org
        AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')
        AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now())
      ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE SKIP LOCKED;
    ELSIF NOT FOUND THEN
      EXECUTE $q$SELECT j.id, j.assigned_to, j.lock_expires_at FROM jobs j
        WHERE j.app_id = $1 AND j.organization_id = $2
          AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT $3 OR j.status = 'SUSPENDED')
          AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now())
          AND ($4::timestamptz IS NULL OR j.created_at >= $4) AND ($5::timestamptz IS NULL OR j.created_at < $5)
        ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE SKIP LOCKED$q$
        INTO v_id, v_user, v_lock USING p_app, p_org, p_suspended_only, p_from, p_to;
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
END $$;
-- +goose StatementEnd
