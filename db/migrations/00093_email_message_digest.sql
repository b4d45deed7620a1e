-- +goose Up
-- A message is a repetition of one recorded before only when its content matches too: a Message-ID is
-- written by the sender, so anyone could otherwise reuse a real message's id and have the real message
-- dropped. The digest is SHA-256 of the message without the header fields relays add; rows recorded
-- before it have none and conflict with nothing.
ALTER TABLE email_messages ADD COLUMN content_digest bytea;
DROP INDEX email_messages_once_idx;
CREATE UNIQUE INDEX email_messages_once_idx ON email_messages (email_task_id, message_id, content_digest)
  WHERE message_id IS NOT NULL;

-- +goose Down
DROP INDEX email_messages_once_idx;
DELETE FROM email_messages a USING email_messages b
  WHERE a.email_task_id = b.email_task_id AND a.message_id = b.message_id AND a.received_at > b.received_at;
CREATE UNIQUE INDEX email_messages_once_idx ON email_messages (email_task_id, message_id) WHERE message_id IS NOT NULL;
ALTER TABLE email_messages DROP COLUMN content_digest;
