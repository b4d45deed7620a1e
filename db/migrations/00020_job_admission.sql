-- +goose Up
-- PENDING jobs are admitted per app, highest priority first and then oldest; the sweep finds the apps
-- that have any with a loose scan of the same index.
CREATE INDEX jobs_pending_idx ON jobs (app_id, priority DESC, id) WHERE status = 'PENDING';

-- +goose Down
DROP INDEX jobs_pending_idx;
