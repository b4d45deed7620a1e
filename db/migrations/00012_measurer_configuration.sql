-- +goose Up
-- How each app is measured against its API's baseline data. An app without a row has the defaults
-- (disabled, no metrics, not accepting measurement jobs). onboarding_code is the code measurement
-- jobs are submitted with; it is set only while the app is enabled and accepts measurement jobs, and a
-- new one starts each measurement round. state CALCULATING means a measurer operation is queued or
-- running: measurement jobs and configuration changes wait for it.
CREATE TABLE measurer_configurations (
  app_id                   uuid PRIMARY KEY REFERENCES apps (id) ON DELETE CASCADE,
  organization_id          uuid NOT NULL REFERENCES organizations (id),
  enabled                  boolean NOT NULL DEFAULT false,
  metrics                  text[] NOT NULL DEFAULT '{}',
  fields                   text[] NOT NULL DEFAULT '{}',
  baseline_types           text[] NOT NULL DEFAULT '{OWNER,GOLD_WORKFLOW}',
  accept_measurement_jobs  boolean NOT NULL DEFAULT false,
  onboarding_code          bigint CHECK (onboarding_code >= 0),
  measure_interval_hours   integer CHECK (measure_interval_hours BETWEEN 1 AND 8760),
  state                    text NOT NULL DEFAULT 'IDLE' CHECK (state IN ('IDLE', 'CALCULATING', 'READY')),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  modified_by              text NOT NULL DEFAULT 'system',
  CHECK (onboarding_code IS NULL OR (enabled AND accept_measurement_jobs))
);

-- The measurement round a measurement job was submitted in (its onboarding code); null for other jobs.
ALTER TABLE jobs ADD COLUMN onboarding_code bigint;

-- +goose Down
ALTER TABLE jobs DROP COLUMN onboarding_code;
DROP TABLE measurer_configurations;
