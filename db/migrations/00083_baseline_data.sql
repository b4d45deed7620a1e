-- +goose Up
-- Baseline (gold) data of an API: reference input/response pairs the measurer scores job responses
-- against. An API is a flow; its records go with it.
CREATE TABLE baseline_data (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  api_id           uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  type             text NOT NULL DEFAULT 'OWNER' CHECK (type IN ('OWNER', 'REVIEW', 'GOLD_WORKFLOW')),
  input            jsonb NOT NULL,
  response         jsonb NOT NULL,
  label            text CHECK (char_length(label) <= 200),
  source_job_id    bigint,
  created_by       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX baseline_data_api_idx ON baseline_data (api_id, id);

-- +goose Down
DROP TABLE baseline_data;
