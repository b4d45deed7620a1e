-- +goose Up
-- Measurer operations and their datasets. A dataset is a snapshot of an API's baseline records (later
-- edits of the records do not change it); a MEASURE operation runs one job of the app per record
-- (measurement_jobs links them) and, once they have all finished, records the configured metrics in
-- measurements; CALIBRATE derives per-field confidence thresholds from a dataset's measured jobs.
CREATE TABLE measurement_datasets (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  app_id           uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  api_id           uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE measurement_dataset_records (
  dataset_id   uuid NOT NULL REFERENCES measurement_datasets (id) ON DELETE CASCADE,
  baseline_id  bigint NOT NULL,
  input        jsonb NOT NULL,
  response     jsonb NOT NULL,
  PRIMARY KEY (dataset_id, baseline_id)
);

CREATE TABLE measurer_operations (
  id                uuid PRIMARY KEY,
  organization_id   uuid NOT NULL REFERENCES organizations (id),
  app_id            uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  type              text NOT NULL CHECK (type IN ('MEASURE', 'CALIBRATE')),
  status            text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
  dataset_id        uuid REFERENCES measurement_datasets (id) ON DELETE SET NULL,
  parameter_set_id  uuid,
  progress          double precision NOT NULL DEFAULT 0,
  error             text,
  created_by        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz
);
CREATE INDEX measurer_operations_app_idx ON measurer_operations (app_id, created_at DESC);

CREATE TABLE measurement_jobs (
  operation_id  uuid NOT NULL REFERENCES measurer_operations (id) ON DELETE CASCADE,
  dataset_id    uuid NOT NULL,
  baseline_id   bigint NOT NULL,
  app_id        uuid NOT NULL,
  job_id        bigint NOT NULL,
  PRIMARY KEY (operation_id, baseline_id)
);
CREATE INDEX measurement_jobs_dataset_idx ON measurement_jobs (dataset_id, job_id);

CREATE TABLE measurer_thresholds (
  app_id      uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  dataset_id  uuid NOT NULL REFERENCES measurement_datasets (id) ON DELETE CASCADE,
  field_name  text NOT NULL,
  threshold   double precision,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (app_id, dataset_id, field_name)
);

-- +goose Down
DROP TABLE measurer_thresholds;
DROP TABLE measurement_jobs;
DROP TABLE measurer_operations;
DROP TABLE measurement_dataset_records;
DROP TABLE measurement_datasets;
