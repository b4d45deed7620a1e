-- +goose Up
-- Jobs are keyed by (app_id, id). With a primary key on id alone, a page of one app's jobs in id order
-- could be read through that key, which walks every app's jobs: PostgreSQL expects an app's matches to
-- be spread evenly over the ids, but an app's jobs sit together in id order, so with a million jobs of
-- another app ahead of (or, descending, behind) them it read a million rows to return ten (230–430 ms,
-- measured with two apps of a million jobs each). Under (app_id, id) every such walk stays inside the
-- app. Feedback and history reference their job by the same key, so history rows carry the app too.
ALTER TABLE job_feedback DROP CONSTRAINT job_feedback_job_id_fkey;
ALTER TABLE job_history DROP CONSTRAINT job_history_job_id_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_pkey;
ALTER TABLE jobs ADD CONSTRAINT jobs_pkey PRIMARY KEY (app_id, id);
DROP INDEX jobs_app_id_idx; -- the new primary key

ALTER TABLE job_history ADD COLUMN app_id uuid;
UPDATE job_history h SET app_id = j.app_id FROM jobs j WHERE j.id = h.job_id;
ALTER TABLE job_history ALTER COLUMN app_id SET NOT NULL;

ALTER TABLE job_feedback ADD CONSTRAINT job_feedback_job_fkey
  FOREIGN KEY (app_id, job_id) REFERENCES jobs (app_id, id) ON DELETE CASCADE;
ALTER TABLE job_history ADD CONSTRAINT job_history_job_fkey
  FOREIGN KEY (app_id, job_id) REFERENCES jobs (app_id, id) ON DELETE CASCADE;

-- +goose Down
ALTER TABLE job_history DROP CONSTRAINT job_history_job_fkey;
ALTER TABLE job_feedback DROP CONSTRAINT job_feedback_job_fkey;
ALTER TABLE job_history DROP COLUMN app_id;
CREATE INDEX jobs_app_id_idx ON jobs (app_id, id);
ALTER TABLE jobs DROP CONSTRAINT jobs_pkey;
ALTER TABLE jobs ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);
ALTER TABLE job_history ADD CONSTRAINT job_history_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE;
ALTER TABLE job_feedback ADD CONSTRAINT job_feedback_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE;
