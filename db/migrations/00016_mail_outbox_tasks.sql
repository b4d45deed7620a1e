-- +goose Up
-- Mail sent by email tasks of flows: further recipients (recipient keeps the first), copies, a
-- Message-ID known when the mail is written (it is the task's output), and the attempt's idempotency
-- key, so that recording the same attempt twice cannot write the mail twice. Older rows keep one recipient and no Message-ID; the
-- sender makes one up for them as before.
ALTER TABLE mail_outbox
  ADD COLUMN also_to          text[] NOT NULL DEFAULT '{}',
  ADD COLUMN cc               text[] NOT NULL DEFAULT '{}',
  ADD COLUMN bcc              text[] NOT NULL DEFAULT '{}',
  ADD COLUMN message_id       text,
  ADD COLUMN idempotency_key  text;
CREATE UNIQUE INDEX mail_outbox_idempotency_key ON mail_outbox (idempotency_key) WHERE idempotency_key IS NOT NULL;

-- +goose Down
DROP INDEX mail_outbox_idempotency_key;
ALTER TABLE mail_outbox DROP COLUMN also_to, DROP COLUMN cc, DROP COLUMN bcc, DROP COLUMN message_id, DROP COLUMN idempotency_key;
