-- +goose Up
-- The core of the workflow platform that other areas refer to: flows, their versions, and executions.
-- Apps are instances of a flow (api_id), jobs start executions, usage is recorded against executions.

CREATE TABLE flows (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  created_by          uuid REFERENCES users (id),
  latest_version      integer NOT NULL DEFAULT 1 CHECK (latest_version >= 1),
  -- run_number counts executions by creation time, deleted ones included, so it is handed out here.
  executions_started  bigint NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  modified_by         text NOT NULL DEFAULT 'system',
  deleted_at          timestamptz
);
CREATE INDEX flows_org_idx ON flows (organization_id, created_at DESC) WHERE deleted_at IS NULL;

-- Every version is a full snapshot: reading version N needs nothing else.
CREATE TABLE flow_versions (
  flow_id          uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  version          integer NOT NULL CHECK (version >= 1),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  display_name     text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 255),
  description      text CHECK (char_length(description) <= 5000),
  status           text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
  visibility       text CHECK (visibility IN ('private', 'organization', 'public')),
  definition       jsonb NOT NULL,
  settings         jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  PRIMARY KEY (flow_id, version)
);

CREATE TABLE flow_executions (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  flow_id          uuid NOT NULL REFERENCES flows (id),
  flow_version     integer NOT NULL CHECK (flow_version >= 1),
  status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'in_progress', 'completed',
                     'failed', 'deleted', 'stale', 'awaiting_input')),
  input            jsonb NOT NULL DEFAULT '{}',
  output           jsonb,
  error            jsonb,
  run_number       bigint NOT NULL,
  created_by       uuid REFERENCES users (id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  deleted_at       timestamptz
);
CREATE INDEX flow_executions_org_idx ON flow_executions (organization_id, created_at DESC);
CREATE INDEX flow_executions_flow_idx ON flow_executions (flow_id, created_at DESC);

-- +goose Down
DROP TABLE flow_executions;
DROP TABLE flow_versions;
DROP TABLE flows;
