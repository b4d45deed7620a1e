-- +goose Up
-- Outside workers claim the oldest waiting attempt of their organization: this index hands them the
-- waiting attempts in that order instead of a scan of every attempt the organization ever had.
CREATE INDEX task_executions_waiting_idx ON task_executions (organization_id, created_at, id)
  WHERE status IN ('queued', 'running');

-- +goose Down
DROP INDEX task_executions_waiting_idx;
