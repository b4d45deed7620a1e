-- +goose Up
-- The /v1 apps-and-jobs interface. Users act as workers of apps; /v1 names them by an integer id.
ALTER TABLE users ADD COLUMN worker_id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE users ADD CONSTRAINT users_worker_id_key UNIQUE (worker_id);

CREATE TABLE worker_groups (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  name             citext NOT NULL CHECK (btrim(name::text) <> '' AND char_length(name::text) <= 200),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, name)
);

CREATE TABLE worker_group_members (
  group_id         bigint NOT NULL REFERENCES worker_groups (id) ON DELETE CASCADE,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  added_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX worker_group_members_user_idx ON worker_group_members (user_id);

CREATE TABLE apps (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id         uuid NOT NULL REFERENCES organizations (id),
  name                    text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description             text,
  api_id                  uuid REFERENCES flows (id),
  status                  text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'PAUSED', 'ARCHIVED')),
  job_ttl_seconds         integer CHECK (job_ttl_seconds > 0),
  settings                jsonb NOT NULL DEFAULT '{}',
  owner_id                uuid REFERENCES users (id),
  owner_activity_at       timestamptz,
  previous_owner_activity_at timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  modified_by             text NOT NULL DEFAULT 'system'
);
CREATE INDEX apps_org_idx ON apps (organization_id, id);

CREATE TABLE app_workers (
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  role             text NOT NULL CHECK (role IN ('LABELER', 'REVIEWER', 'MANAGER')),
  added_at         timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, user_id)
);
CREATE INDEX app_workers_user_idx ON app_workers (user_id);

CREATE TABLE app_worker_groups (
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  group_id         bigint NOT NULL REFERENCES worker_groups (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  role             text NOT NULL CHECK (role IN ('LABELER', 'REVIEWER', 'MANAGER')),
  added_at         timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, group_id)
);
CREATE INDEX app_worker_groups_group_idx ON app_worker_groups (group_id);

CREATE TABLE app_tags (
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  tag              text NOT NULL CHECK (char_length(tag) BETWEEN 1 AND 100 AND position(',' in tag) = 0),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  description      text,
  color            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, tag)
);

-- Jobs. Everything a filter can test is a column of the row, so one indexed scan answers a filter;
-- feedback counters are kept on the row for the same reason.
CREATE TABLE jobs (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  app_id             uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  status             text NOT NULL CHECK (status IN ('SCHEDULED', 'IN_PROGRESS', 'SUSPENDED', 'PENDING', 'FAILED',
                       'CANCELED', 'EXPIRED', 'COMPLETED')),
  processing_state   text NOT NULL CHECK (processing_state IN ('QUEUED', 'PROCESSING', 'AWAITING_HUMAN', 'LABELED',
                       'REVIEWED', 'DONE', 'ERROR')),
  input              jsonb NOT NULL,
  response           jsonb,
  metadata           jsonb NOT NULL DEFAULT '{}',
  tags               text[] NOT NULL DEFAULT '{}',
  batch_id           text,
  priority           smallint NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 10),
  score              double precision,
  trust_score        double precision,
  correct            boolean,
  reviewed           text CHECK (reviewed IN ('CORRECT', 'NOT_CORRECT')),
  first_incorrect    boolean NOT NULL DEFAULT false,
  edited             boolean NOT NULL DEFAULT false,
  relabeled          boolean NOT NULL DEFAULT false,
  is_measurement     boolean NOT NULL DEFAULT false,
  labeled_by         uuid REFERENCES users (id),
  labeled_at         timestamptz,
  assigned_to        uuid REFERENCES users (id),
  lock_expires_at    timestamptz,
  feedback_count     integer NOT NULL DEFAULT 0,
  feedback_tags      text[] NOT NULL DEFAULT '{}',
  last_feedback_at   timestamptz,
  flow_execution_id  uuid REFERENCES flow_executions (id),
  error              text,
  created_by         uuid REFERENCES users (id),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  completed_at       timestamptz,
  expires_at         timestamptz
);
-- Lists and bulk operations walk an app's jobs in id order, optionally per status.
CREATE INDEX jobs_app_id_idx ON jobs (app_id, id);
CREATE INDEX jobs_app_status_id_idx ON jobs (app_id, status, id);
CREATE INDEX jobs_tags_idx ON jobs USING gin (tags);
-- The labeling queue: the few jobs waiting for a person, oldest first.
CREATE INDEX jobs_label_queue_idx ON jobs (app_id, id) WHERE status IN ('SCHEDULED', 'SUSPENDED');
CREATE INDEX jobs_expiry_idx ON jobs (expires_at) WHERE expires_at IS NOT NULL AND status IN ('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED');

CREATE TABLE job_feedback (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id           bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  app_id           uuid NOT NULL,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  author           uuid REFERENCES users (id),
  message          text,
  feedback_tags    text[] NOT NULL DEFAULT '{}',
  correct          boolean,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_feedback_job_idx ON job_feedback (job_id, created_at DESC);

-- What happened to a job after it was created (its creation is the job row itself).
CREATE TABLE job_history (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id           bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  at               timestamptz NOT NULL DEFAULT now(),
  event            text NOT NULL,
  actor            text,
  from_status      text,
  to_status        text,
  details          jsonb
);
CREATE INDEX job_history_job_idx ON job_history (job_id, id);

-- Job counts per app and status, current in every transaction, split into 16 shards so that
-- concurrent writers rarely touch the same row. Statement-level triggers with transition tables keep
-- them: one counter update per statement and status, whether the statement touched one job or a million.
CREATE TABLE job_counters (
  app_id  uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  status  text NOT NULL,
  shard   smallint NOT NULL,
  n       bigint NOT NULL,
  PRIMARY KEY (app_id, status, shard)
);

-- +goose StatementBegin
CREATE FUNCTION job_counters_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (random() * 15)::smallint, count(*) FROM new_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE FUNCTION job_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO job_counters (app_id, status, shard, n)
  SELECT app_id, status, (random() * 15)::smallint, -count(*) FROM old_jobs GROUP BY app_id, status
  ON CONFLICT (app_id, status, shard) DO UPDATE SET n = job_counters.n + EXCLUDED.n;
  RETURN NULL;
END $$;

CREATE FUNCTION job_counters_update() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION job_counters_insert();
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION job_counters_delete();
CREATE TRIGGER jobs_count_update AFTER UPDATE ON jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION job_counters_update();

-- Filtered counts are kept for a minute (countJobs with useCache), keyed by the filter's hash.
CREATE TABLE job_count_cache (
  app_id       uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  filter_hash  text NOT NULL,
  counts       jsonb NOT NULL,
  counted_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, filter_hash)
);

-- Bulk operations over a filter that run in the background (answered 202 with their id).
CREATE TABLE bulk_operations (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  type             text NOT NULL CHECK (type IN ('CANCEL_JOBS', 'DELETE_JOBS', 'RERUN_JOBS')),
  status           text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')),
  filter           jsonb NOT NULL DEFAULT '{}',
  params           jsonb,
  batch_id         text,
  total            bigint,
  processed        bigint NOT NULL DEFAULT 0,
  -- Jobs are processed in id order; a restarted operation resumes after last_id.
  last_id          bigint NOT NULL DEFAULT 0,
  error            text,
  created_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz
);
CREATE INDEX bulk_operations_app_idx ON bulk_operations (app_id, created_at DESC);

-- +goose Down
DROP TABLE bulk_operations;
DROP TABLE job_count_cache;
DROP TRIGGER jobs_count_update ON jobs;
DROP TRIGGER jobs_count_delete ON jobs;
DROP TRIGGER jobs_count_insert ON jobs;
DROP FUNCTION job_counters_update();
DROP FUNCTION job_counters_delete();
DROP FUNCTION job_counters_insert();
DROP TABLE job_counters;
DROP TABLE job_history;
DROP TABLE job_feedback;
DROP TABLE jobs;
DROP TABLE app_tags;
DROP TABLE app_worker_groups;
DROP TABLE app_workers;
DROP TABLE apps;
DROP TABLE worker_group_members;
DROP TABLE worker_groups;
ALTER TABLE users DROP COLUMN worker_id;
