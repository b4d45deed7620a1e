-- +goose Up
-- The labeling queue hands out the highest priority first, then the oldest job. The queue's index is in
-- that order, so the next free job is the first entry of the index that nobody holds, whatever the
-- length of the queue, instead of every waiting job of the app read and sorted by priority.
DROP INDEX jobs_label_queue_idx;
CREATE INDEX jobs_label_queue_idx ON jobs (app_id, priority DESC, id) WHERE status IN ('SCHEDULED', 'SUSPENDED');

-- +goose Down
DROP INDEX jobs_label_queue_idx;
CREATE INDEX jobs_label_queue_idx ON jobs (app_id, id) WHERE status IN ('SCHEDULED', 'SUSPENDED');
