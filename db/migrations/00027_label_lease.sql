-- +goose Up
-- A label lease in one round trip. Sixteen labelers on two cores spent their time waiting for a CPU
-- between the eleven statements of a lease, not running them. A function keeps the one rule no single
-- statement can: a worker's own requests are serialised, and each step after the lock must see what
-- the worker's previous request committed. A VOLATILE function takes a fresh snapshot for every
-- statement it runs, so its queries after pg_advisory_xact_lock see that commit, where the statement
-- calling it could not. Its plans are cached per connection like prepared statements: the pick walks
-- jobs_label_queue_idx without being planned again, except for a date range (EXECUTE, planned for its
-- values, as a narrow range may be better served by jobs_app_created_idx).
--
-- label_lease hands p_user the job p_job names, or else the job it holds (renewed), or else the first
-- free job of the queue in its order (highest priority, then oldest) within the created range. It
-- answers the job as it is now, its holder's and labeler's usernames and the queue's other free jobs;
-- no row when there is nothing to hand out; SQLSTATE P0002 when p_job is not a job of the app.
-- p_suspended_only: the queue of an app with a flow holds only SUSPENDED jobs. Call it as a statement
-- of its own, outside a transaction: it makes the commit of its transaction asynchronous (see below).
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
  -- A lease commits without waiting for its WAL to reach the disk: under load a lease spent three
  -- quarters of its time in the database waiting for that flush (wait events LWLock:WALWrite and
  -- IO:WALSync; a lease writes a full page image of its job's page). A database crash may forget the
  -- last fraction of a second of leases, and nothing else: the jobs are free again and the history
  -- holds no ASSIGNED for them, as if the leases had lapsed, and a label by a worker who was told of
  -- such a lease is checked against the holder of the job then, as always. Anything the worker
  -- commits later (its label) flushes the lease with it.
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
      -- Held by another worker: answered with its holder, and left to them.
      SELECT * INTO v_row FROM jobs j WHERE j.app_id = p_app AND j.id = v_id;
    END IF;
  ELSE
    -- The caller's own job comes back to it (renewed) before any free one, whatever the priorities.
    SELECT j.id, j.assigned_to, j.lock_expires_at INTO v_id, v_user, v_lock
    FROM jobs j
    WHERE j.app_id = p_app AND j.organization_id = p_org AND j.assigned_to = p_user AND j.lock_expires_at > now()
      AND j.status IN ('SCHEDULED', 'SUSPENDED') AND (NOT p_suspended_only OR j.status = 'SUSPENDED')
    ORDER BY j.priority DESC, j.id LIMIT 1 FOR UPDATE;
    IF NOT FOUND AND p_from IS NULL AND p_to IS NULL THEN
      -- The status list is literal so that the partial index's predicate is implied.
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
    -- Only an UPDATE that leases: the counters' statement trigger runs for every UPDATE of jobs.
    UPDATE jobs j SET assigned_to = p_user, lock_expires_at = now() + make_interval(mins => p_minutes), updated_at = now()
    WHERE j.app_id = p_app AND j.id = v_id RETURNING * INTO v_row;
    -- A renewal is no new assignment; a lapsed lock taken over is recorded as released first.
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
  -- The queue's other free jobs: its statuses' counters less the jobs held now (a small partial index),
  -- so that a queue of a million jobs is not walked.
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
DROP FUNCTION label_lease(uuid, uuid, uuid, text, int, boolean, boolean, bigint, timestamptz, timestamptz);
