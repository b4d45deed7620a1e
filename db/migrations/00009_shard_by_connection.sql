-- +goose Up
-- Counter and balance shards were picked at random: with 16 shards and 16 concurrent submitters, two
-- transactions often picked the same row and the second waited for the first to commit. A connection
-- runs one transaction at a time, so picking the shard by backend process (out of 64) gives each
-- connection of the pool its own row and concurrent transactions almost never meet.
ALTER TABLE credit_balances DROP CONSTRAINT credit_balances_shard_check;
ALTER TABLE credit_balances ADD CONSTRAINT credit_balances_shard_check CHECK (shard BETWEEN 0 AND 63);

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
    SELECT o.app_id, o.status, -1 AS d FROM old_jobs o JOIN new_jobs n ON n.id = o.id WHERE o.status <> n.status
    UNION ALL
    SELECT n.app_id, n.status, 1 FROM old_jobs o JOIN new_jobs n ON n.id = o.id WHERE o.status <> n.status
  ) changes GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION job_counters_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (random() * 15)::smallint, count(*) FROM new_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (random() * 15)::smallint, -count(*) FROM old_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION job_counters_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (random() * 15)::smallint, sum(d) FROM (
    SELECT o.app_id, o.status, -1 AS d FROM old_jobs o JOIN new_jobs n ON n.id = o.id WHERE o.status <> n.status
    UNION ALL
    SELECT n.app_id, n.status, 1 FROM old_jobs o JOIN new_jobs n ON n.id = o.id WHERE o.status <> n.status
  ) changes GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;
-- +goose StatementEnd
-- Shards above 15 are folded back before the narrower check returns.
INSERT INTO credit_balances (organization_id, shard, granted, consumed)
SELECT organization_id, (shard % 16)::smallint, sum(granted), sum(consumed) FROM credit_balances WHERE shard > 15
GROUP BY organization_id, shard % 16
ON CONFLICT (organization_id, shard) DO UPDATE
  SET granted = credit_balances.granted + EXCLUDED.granted, consumed = credit_balances.consumed + EXCLUDED.consumed;
DELETE FROM credit_balances WHERE shard > 15;
ALTER TABLE credit_balances DROP CONSTRAINT credit_balances_shard_check;
ALTER TABLE credit_balances ADD CONSTRAINT credit_balances_shard_check CHECK (shard BETWEEN 0 AND 15);
