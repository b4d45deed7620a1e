-- +goose Up
-- Indexes of the per-worker job questions (the labeling queue, the collaborator list) and of the jobs
-- with feedback: partial, so they hold only the jobs a person touched, never the million an app may
-- have waiting. And one for the creation order of an app's jobs.

-- The jobs a worker holds (or held until its lock lapsed): the label route finds the caller's job and
-- counts the jobs held by others without walking the queue.
CREATE INDEX jobs_assigned_idx ON jobs (app_id, assigned_to) WHERE assigned_to IS NOT NULL;
-- The jobs a worker labeled.
CREATE INDEX jobs_labeled_by_idx ON jobs (app_id, labeled_by) WHERE labeled_by IS NOT NULL;
-- The jobs a worker reviewed (feedback with a verdict).
CREATE INDEX job_feedback_verdict_author_idx ON job_feedback (app_id, author) WHERE correct IS NOT NULL;
-- The jobs with feedback, in id order: the list of jobs with their latest feedback message (and the
-- onlyIfFeedback filter) pages through these instead of skipping the app's jobs without any.
CREATE INDEX jobs_with_feedback_idx ON jobs (app_id, id) WHERE feedback_count > 0;

-- Lists sorted by creation time (the usual "newest first") and creation ranges read this instead of
-- sorting every job of the app; the other sort keys are rarer, and updated_at changes too often to index.
CREATE INDEX jobs_app_created_idx ON jobs (app_id, created_at, id);

-- +goose Down
DROP INDEX jobs_app_created_idx;
DROP INDEX jobs_with_feedback_idx;
DROP INDEX job_feedback_verdict_author_idx;
DROP INDEX jobs_labeled_by_idx;
DROP INDEX jobs_assigned_idx;
