-- +goose Up
-- Exports of an app's job responses. The row is the export's state; the file is written by a River job
-- (exports.Worker) to blob storage under storage_key, whole or not at all, and the row says SUCCEEDED
-- only once the file is there. beat_at moves while a worker writes, so a worker that died is noticed
-- (exports.Rescue) long before River would rescue its job.
CREATE TABLE exports (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  status           text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'EXPIRED')),
  -- Unique per organization: the download route names a file by it alone.
  filename         text NOT NULL,
  format           text NOT NULL CHECK (format IN ('csv', 'jsonl')),
  -- The query parameters as the request gave them (shown back), and the compiled job filter.
  options          jsonb NOT NULL,
  filter           jsonb NOT NULL,
  -- The file options the worker writes with (exports.Options).
  file_options     jsonb NOT NULL,
  email            text,
  storage_key      text NOT NULL,
  job_count        bigint,
  size_bytes       bigint,
  error            text,
  attempts         integer NOT NULL DEFAULT 0,
  created_by       text,
  created_by_user  uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  expires_at       timestamptz,
  beat_at          timestamptz,
  CONSTRAINT exports_org_filename_key UNIQUE (organization_id, filename)
);
CREATE INDEX exports_app_idx ON exports (app_id, created_at);
CREATE INDEX exports_unfinished_idx ON exports (beat_at) WHERE status IN ('QUEUED', 'RUNNING');
CREATE INDEX exports_expiry_idx ON exports (expires_at) WHERE status = 'SUCCEEDED';

-- +goose Down
DROP TABLE exports;
