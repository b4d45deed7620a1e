-- +goose Up
-- The metric targets of an API (a flow), and the values the measurer computes for its apps. A target is
-- one per metric and response field; a measurement is one metric of one field of one app, over one
-- dataset and parameter set, at one time.
CREATE TABLE api_desired_metrics (
  api_id           uuid PRIMARY KEY REFERENCES flows (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  metrics          jsonb NOT NULL DEFAULT '[]',
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE measurements (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id   uuid NOT NULL REFERENCES organizations (id),
  app_id            uuid NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  api_id            uuid REFERENCES flows (id) ON DELETE SET NULL,
  metric_name       text NOT NULL,
  field_name        text NOT NULL DEFAULT '{}',
  dataset_id        uuid,
  parameter_set_id  uuid,
  value             double precision NOT NULL,
  sample_size       bigint NOT NULL CHECK (sample_size >= 0),
  measured_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX measurements_app_idx ON measurements (app_id, metric_name, field_name, measured_at DESC);
CREATE INDEX measurements_api_idx ON measurements (api_id, metric_name, field_name, measured_at DESC);

-- +goose Down
DROP TABLE measurements;
DROP TABLE api_desired_metrics;
