-- +goose Up
-- Every batch of a bulk operation commits with beat_at = now(). An operation that is not finished and
-- has not beaten for twice the task lease (at least 10 s) lost its worker (a process killed mid-way): the jobs sweep hands it to a
-- new run at once instead of waiting for River to rescue the old job (minutes later).
ALTER TABLE bulk_operations ADD COLUMN beat_at timestamptz;
CREATE INDEX bulk_operations_unfinished_idx ON bulk_operations (beat_at) WHERE status IN ('QUEUED', 'RUNNING');

-- +goose Down
DROP INDEX bulk_operations_unfinished_idx;
ALTER TABLE bulk_operations DROP COLUMN beat_at;
