-- +goose Up
-- Display statuses and tags of the tasks of flow executions. Both are annotations beside the engine's
-- own state: they belong to a task name of one execution, not to one attempt, and task names are not
-- checked against the definition. Rows go with their execution (ON DELETE CASCADE); a soft-deleted
-- execution keeps them readable.

-- Status records are append-only: a task's current status is its newest record, and a record with a
-- null status clears it. seq orders records of one transaction, which share created_at.
CREATE TABLE flow_task_statuses (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  flow_execution_id  uuid NOT NULL REFERENCES flow_executions (id) ON DELETE CASCADE,
  task_name          text NOT NULL CHECK (char_length(task_name) BETWEEN 1 AND 255),
  status             text CHECK (char_length(status) <= 50),
  created_at         timestamptz NOT NULL DEFAULT now(),
  modified_by        text NOT NULL DEFAULT 'system'
);
-- Serves both lists: the history in order, and the newest record per task (DISTINCT ON task_name).
CREATE INDEX flow_task_statuses_exec_idx ON flow_task_statuses (flow_execution_id, task_name, seq);

-- Tags are soft-deleted: a removed tag keeps its row (status 'deleted', who and when), and adding the
-- same tag again creates a new active row.
CREATE TABLE flow_task_tags (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq                bigint GENERATED ALWAYS AS IDENTITY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  flow_execution_id  uuid NOT NULL REFERENCES flow_executions (id) ON DELETE CASCADE,
  task_name          text NOT NULL CHECK (char_length(task_name) BETWEEN 1 AND 200),
  tag                text NOT NULL CHECK (char_length(tag) BETWEEN 1 AND 200),
  tag_type           text NOT NULL CHECK (char_length(tag_type) BETWEEN 1 AND 100),
  tag_metadata       jsonb,
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  modified_by        text NOT NULL DEFAULT 'system'
);
-- At most one active tag per key. Null metadata is one value of the key (coalesce), so two adds without
-- metadata meet here too; concurrent identical adds insert with ON CONFLICT DO NOTHING against it.
CREATE UNIQUE INDEX flow_task_tags_active_key ON flow_task_tags
  (flow_execution_id, task_name, tag, tag_type, (coalesce(tag_metadata, 'null'::jsonb)))
  WHERE status = 'active';
-- The organization-wide list (oldest first, optionally by tag) and the per-execution list.
CREATE INDEX flow_task_tags_org_idx ON flow_task_tags (organization_id, tag, created_at, seq) WHERE status = 'active';
CREATE INDEX flow_task_tags_org_created_idx ON flow_task_tags (organization_id, created_at, seq) WHERE status = 'active';
CREATE INDEX flow_task_tags_exec_idx ON flow_task_tags (flow_execution_id, created_at, seq) WHERE status = 'active';

-- +goose Down
DROP TABLE flow_task_tags;
DROP TABLE flow_task_statuses;
