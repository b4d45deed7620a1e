-- +goose Up
-- Who may complete a human review is one rule on both interfaces (stated in internal/engine/reviewrule,
-- whose SQL these functions are): the review's assigned users and the administrators of its
-- organization; and, when the assigned users were defaulted rather than named, also a caller a door lets
-- work on the review on its own account (on /v1, a labeler of the app whose job waits for it). The /v1
-- label queue calls them in label_lease; the services call them through reviewrule.

-- Whether the assigned users were named (the human_review task's assigned_users, or those given to
-- POST /api/human-review-tasks) rather than defaulted to the users invited to the flow and its creator.
ALTER TABLE human_review_tasks ADD COLUMN users_named boolean NOT NULL DEFAULT false;

-- Open reviews the engine opened before: named when their task's parameters name users. (A review an
-- outside worker opened with named users is not told apart here; it stays open to the app's labelers
-- until it completes, as it was.)
UPDATE human_review_tasks r SET users_named = true
FROM flow_versions v,
  jsonb_array_elements(CASE WHEN jsonb_typeof(v.definition -> 'tasks') = 'array' THEN v.definition -> 'tasks'
                            ELSE '[]'::jsonb END) t
WHERE r.status <> 'completed' AND r.holds_attempt
  AND v.flow_id = (r.task_metadata ->> 'flow_id')::uuid AND v.version = (r.task_metadata ->> 'flow_version')::int
  AND t ->> 'name' = r.target_task_name AND t ->> 'type' = 'human_review'
  AND jsonb_typeof(t -> 'parameters' -> 'assigned_users') = 'array'
  AND jsonb_array_length(t -> 'parameters' -> 'assigned_users') > 0;

-- review_open_to is whether the caller may complete review p_review: p_user its user id, p_admin whether
-- it administers the organization, p_worker whether the door lets it work on the review without an
-- assignment. A NULL review (none open) is open to every worker. Both functions are PL/pgSQL, which keeps
-- their plans for the session: PostgreSQL plans an SQL function it cannot inline anew in every statement.
-- +goose StatementBegin
CREATE FUNCTION review_open_to(p_review uuid, p_user uuid, p_admin boolean, p_worker boolean)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN p_admin
    OR EXISTS (SELECT 1 FROM human_review_assignments a WHERE a.human_review_task_id = p_review AND a.user_id = p_user)
    OR (p_worker AND NOT EXISTS (SELECT 1 FROM human_review_tasks r WHERE r.id = p_review AND r.users_named));
END $$;
-- +goose StatementEnd

-- job_review is the review a /v1 label of the job of execution p_execution completes: the execution's
-- oldest open review (reviews opened in one transaction share created_at; the id breaks the tie).
-- +goose StatementBegin
CREATE FUNCTION job_review(p_execution uuid) RETURNS uuid LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT r.id FROM human_review_tasks r WHERE r.flow_execution_id = p_execution AND r.status <> 'completed'
          ORDER BY r.created_at, r.id LIMIT 1);
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION job_review(uuid);
DROP FUNCTION review_open_to(uuid, uuid, boolean, boolean);
ALTER TABLE human_review_tasks DROP COLUMN users_named;
