-- +goose Up
-- E-mail tasks: inbound addresses of an organization. A deleted task keeps its row (deleted_at), so its
-- address keeps rejecting mail and is never given to another task; its messages go.
CREATE TABLE email_tasks (
  id                   uuid PRIMARY KEY,
  organization_id      uuid NOT NULL REFERENCES organizations (id),
  user_id              uuid REFERENCES users (id) ON DELETE SET NULL,
  name                 text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description          text,
  flow_id              uuid REFERENCES flows (id),
  task_name            text,
  -- The address is <local_part>@<the server's inbound domain>.
  local_part           text NOT NULL UNIQUE,
  status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  email_count          bigint NOT NULL DEFAULT 0,
  last_email_received  timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  deleted_at           timestamptz
);
CREATE INDEX email_tasks_org_idx ON email_tasks (organization_id, created_at DESC, id) WHERE deleted_at IS NULL;
-- Deduplication: one active task per flow and task name.
CREATE UNIQUE INDEX email_tasks_dedup_idx ON email_tasks (organization_id, flow_id, task_name)
  WHERE status = 'active' AND deleted_at IS NULL AND flow_id IS NOT NULL AND task_name IS NOT NULL;

CREATE TABLE email_messages (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  email_task_id    uuid NOT NULL REFERENCES email_tasks (id),
  message_id       text,
  sender           text NOT NULL,
  recipients       text[] NOT NULL,
  subject          text NOT NULL,
  size             bigint NOT NULL,
  attachments      jsonb NOT NULL DEFAULT '[]',
  execution_id     uuid,
  -- Why no execution was started for a task with a flow (no valid version, no credits), or null.
  not_started      text,
  received_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_messages_task_idx ON email_messages (email_task_id, received_at);
-- A message delivered again (a sender that did not hear the answer retries) is recorded once.
CREATE UNIQUE INDEX email_messages_once_idx ON email_messages (email_task_id, message_id) WHERE message_id IS NOT NULL;

-- +goose Down
DROP TABLE email_messages;
DROP TABLE email_tasks;
