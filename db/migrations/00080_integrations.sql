-- +goose Up
-- Integrations bind one task of a flow (by name) to a credential. The credential reference refuses the
-- credential's deletion while an integration uses it (answered as 409 in_use). A flow is deleted softly,
-- so its integrations stay with it and are hidden with it; they go when its row goes.
CREATE TABLE integrations (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  flow_id          uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  credential_id    uuid REFERENCES credentials (id) ON DELETE RESTRICT,
  description      text NOT NULL DEFAULT '' CHECK (char_length(description) <= 5000),
  task_name        text NOT NULL CHECK (char_length(task_name) BETWEEN 1 AND 200),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  CONSTRAINT integrations_flow_task_key UNIQUE (flow_id, task_name)
);
-- The list is the organization's, newest first, optionally by flow or by credential.
CREATE INDEX integrations_org_idx ON integrations (organization_id, created_at DESC, id);
CREATE INDEX integrations_credential_idx ON integrations (credential_id) WHERE credential_id IS NOT NULL;

-- +goose Down
DROP TABLE integrations;
