-- +goose Up
-- The ids of the rows every execution writes many of (its execution, its attempts, its reviews and their
-- assignments, its usage) were random (version 4), and so were the keys of the indexes that lead with
-- them: each new row went to a random leaf of each such index, so every leaf was as hot as any other and
-- the working set was the whole index. Once the indexes outgrew shared buffers (in an 8-minute soak,
-- after about two and a half minutes and 130 MB), each insert read and dirtied leaves evicted a moment
-- before, and throughput fell as the database grew. Time-ordered ids (version 7, RFC 9562: 48 bits of
-- Unix milliseconds, then 74 random bits) put new rows at the right edge of those indexes, where the
-- pages are already in memory. Existing ids stay as they are; both versions are uuids.
--
-- uuid7 is PostgreSQL 18's uuidv7() for the versions before it: the time in the first six bytes of a
-- version 4 uuid's bytes, and the version nibble 4 (0100) made 7 (0111).
-- +goose StatementBegin
CREATE FUNCTION uuid7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
    52, 1), 53, 1), 'hex')::uuid
$$;
-- +goose StatementEnd
ALTER TABLE flow_executions ALTER COLUMN id SET DEFAULT uuid7();
ALTER TABLE task_executions ALTER COLUMN id SET DEFAULT uuid7();
ALTER TABLE usage_records ALTER COLUMN id SET DEFAULT uuid7();
ALTER TABLE human_review_tasks ALTER COLUMN id SET DEFAULT uuid7();
ALTER TABLE human_review_assignments ALTER COLUMN id SET DEFAULT uuid7();

-- +goose Down
ALTER TABLE flow_executions ALTER COLUMN id SET DEFAULT gen_random_uuid();
ALTER TABLE task_executions ALTER COLUMN id SET DEFAULT gen_random_uuid();
ALTER TABLE usage_records ALTER COLUMN id SET DEFAULT gen_random_uuid();
ALTER TABLE human_review_tasks ALTER COLUMN id SET DEFAULT gen_random_uuid();
ALTER TABLE human_review_assignments ALTER COLUMN id SET DEFAULT gen_random_uuid();
DROP FUNCTION uuid7();
