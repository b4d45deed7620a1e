-- +goose Up
-- Counter rows (job_counters, credit_balances) were a connection's own by pg_backend_pid() % 64 (00009).
-- Two live connections whose process ids differ by a multiple of 64 then shared a shard, and two
-- transactions that move jobs of one app through different statuses locked that shard's rows in
-- different orders: PostgreSQL found deadlocks between a submission and a label (40P01, answered 500),
-- and the rows' waits slowed every writer that shared a shard.
--
-- counter_shard() gives each connection a shard no other live connection has: the first of 1,024
-- session advisory locks (the two-key form, in a key space of its own) that it can take, held until the
-- connection ends and remembered in a setting of the session. A setting set in a transaction that rolls
-- back is undone while the lock stays held, so before taking one the connection looks for the one it
-- holds. Should 1,024 connections at once hold shards, a further one shares by its process id, as before.
-- +goose StatementBegin
CREATE FUNCTION counter_shard() RETURNS smallint LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, counter_shard(), count(*) FROM new_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, counter_shard(), -count(*) FROM old_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger LANGUAGE plpgsql AS $$
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
-- +goose StatementEnd
ALTER TABLE credit_balances DROP CONSTRAINT credit_balances_shard_check,
  ADD CONSTRAINT credit_balances_shard_check CHECK (shard >= 0 AND shard <= 1023);

-- +goose Down
ALTER TABLE credit_balances DROP CONSTRAINT credit_balances_shard_check,
  ADD CONSTRAINT credit_balances_shard_check CHECK (shard >= 0 AND shard <= 63) NOT VALID;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (pg_backend_pid() % 64)::smallint, count(*) FROM new_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (pg_backend_pid() % 64)::smallint, -count(*) FROM old_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (pg_backend_pid() % 64)::smallint, sum(d) FROM (
    SELECT app_id, status, -1 AS d FROM old_jobs
    UNION ALL
    SELECT app_id, status, 1 FROM new_jobs
  ) changes GROUP BY app_id, status HAVING sum(d) <> 0
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;
-- +goose StatementEnd
DROP FUNCTION counter_shard();
