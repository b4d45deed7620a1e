-- +goose Up
-- Conversations of a user with the workflow agent, and their stored messages. A conversation is its
-- user's alone. pending holds what the agent waits for the user to answer (a plan to confirm, a
-- proposed definition to accept), so that an action in a later request finds it.
CREATE TABLE conversations (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  user_id          uuid NOT NULL,
  flow_id          uuid REFERENCES flows (id),
  title            text,
  phase            text NOT NULL CHECK (phase IN ('plan', 'build')),
  pending          jsonb,
  -- Set while a reply streams (a lease: a reply whose process died does not block the conversation).
  streaming_until  timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_user_idx ON conversations (organization_id, user_id, created_at DESC, id);

CREATE TABLE chat_messages (
  id               uuid PRIMARY KEY,
  conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  flow_id          uuid,
  sender           text NOT NULL,
  body             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX chat_messages_conversation_idx ON chat_messages (conversation_id, created_at, id);

-- +goose Down
DROP TABLE chat_messages;
DROP TABLE conversations;
