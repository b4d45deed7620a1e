-- +goose Up
-- Human review: a review task asks people to check (and correct) the output of one task attempt of an
-- execution, and hands the reviewed output to a target attempt. The engine creates one per attempt of a
-- human_review task, in the transaction that parks that attempt; outside workers create them through
-- the API. Each assigned user has an assignment, the reviewer's work queue.

CREATE TABLE human_review_tasks (
  id                         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id            uuid NOT NULL REFERENCES organizations (id),
  flow_execution_id          uuid NOT NULL REFERENCES flow_executions (id) ON DELETE CASCADE,
  target_task_name           text NOT NULL CHECK (char_length(target_task_name) BETWEEN 1 AND 200),
  target_task_execution_idx  integer NOT NULL CHECK (target_task_execution_idx >= 0),
  source_task_name           text NOT NULL CHECK (char_length(source_task_name) BETWEEN 1 AND 200),
  source_task_execution_idx  integer NOT NULL CHECK (source_task_execution_idx >= 0),
  status                     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'completed')),
  instructions               text,
  review_result              boolean,
  reviewed_output            jsonb,
  completed_at               timestamptz,
  -- Null on a completed review when it expired (on_timeout decided it) rather than a person.
  completed_by               uuid REFERENCES users (id) ON DELETE SET NULL,
  task_metadata              jsonb,
  -- Whether the target attempt waits for this review (parked with no deadline): completing the review
  -- then completes that attempt with the reviewed output.
  holds_attempt              boolean NOT NULL DEFAULT false,
  -- How many assigned users must approve; approvals counts those who did. One rejection decides.
  required_approvals         integer NOT NULL DEFAULT 1 CHECK (required_approvals >= 1),
  approvals                  integer NOT NULL DEFAULT 0 CHECK (approvals >= 0),
  -- When the review expires, and what then happens to it; a job is scheduled for timeout_at.
  timeout_at                 timestamptz,
  on_timeout                 text CHECK (on_timeout IN ('approve', 'reject', 'fail')),
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now(),
  modified_by                text NOT NULL DEFAULT 'system',
  CHECK ((timeout_at IS NULL) = (on_timeout IS NULL)),
  CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
-- At most one open review per target attempt: a repeated delivery of the engine's job, or a repeated
-- request of an outside worker, cannot open a second one.
CREATE UNIQUE INDEX human_review_tasks_open_key ON human_review_tasks
  (flow_execution_id, target_task_name, target_task_execution_idx) WHERE status <> 'completed';
CREATE INDEX human_review_tasks_list_idx ON human_review_tasks (organization_id, created_at DESC, id DESC);
CREATE INDEX human_review_tasks_exec_idx ON human_review_tasks (flow_execution_id);

CREATE TABLE human_review_assignments (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id       uuid NOT NULL REFERENCES organizations (id),
  human_review_task_id  uuid NOT NULL REFERENCES human_review_tasks (id) ON DELETE CASCADE,
  user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status                text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'completed', 'cancelled')),
  started_at            timestamptz,
  completed_at          timestamptz,
  -- The user's own verdict; with several required approvals each approver's is kept.
  review_result         boolean,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  modified_by           text NOT NULL DEFAULT 'system',
  UNIQUE (human_review_task_id, user_id),
  CHECK ((status = 'pending') = (started_at IS NULL) OR status = 'cancelled')
);
-- "My assignments", newest first, with or without a status filter.
CREATE INDEX human_review_assignments_user_idx ON human_review_assignments (user_id, created_at DESC, id DESC);
CREATE INDEX human_review_assignments_user_status_idx ON human_review_assignments (user_id, status, created_at DESC, id DESC);

-- Deleting an execution (a soft delete, a status change) cancels the assignments of its open reviews,
-- whoever deletes it: the reviewers' queues must not offer work that can no longer be done.
-- +goose StatementBegin
CREATE FUNCTION human_review_cancel_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE human_review_assignments a SET status = 'cancelled', updated_at = now(), modified_by = 'system'
  FROM human_review_tasks t
  WHERE t.flow_execution_id = NEW.id AND t.status <> 'completed' AND a.human_review_task_id = t.id
    AND a.status IN ('pending', 'in_progress');
  RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER human_review_cancel_on_delete AFTER UPDATE OF status ON flow_executions
  FOR EACH ROW WHEN (NEW.status = 'deleted' AND OLD.status <> 'deleted')
  EXECUTE FUNCTION human_review_cancel_on_delete();

-- +goose Down
DROP TRIGGER human_review_cancel_on_delete ON flow_executions;
DROP FUNCTION human_review_cancel_on_delete();
DROP TABLE human_review_assignments;
DROP TABLE human_review_tasks;
