-- +goose Up
-- The labeling statistics read an app's labeling and review events by time; the job's own history
-- index (job_id, id) serves the lookup of the assignment before each label.
CREATE INDEX job_history_labeling_idx ON job_history (app_id, at)
  WHERE event IN ('LABELED', 'RELABELED', 'EDITED', 'REVIEWED');

-- +goose Down
DROP INDEX job_history_labeling_idx;
