-- +goose Up
-- The execution engine's state. An execution keeps, per task of its flow version, how many
-- predecessors it still waits for (joins are counters, not scans); each attempt of a task is a row of
-- task_executions keyed by (execution, task name, task_execution_idx), so a repeated delivery can never
-- record an attempt twice. The River job that runs an attempt is inserted in the transaction that makes
-- the task ready, and completed in the transaction that records the attempt's outcome.

ALTER TABLE flow_executions
  ADD COLUMN started_at   timestamptz,
  ADD COLUMN finished_at  timestamptz,
  -- tasks_left counts the tasks that have not reached a final state; the execution completes at zero.
  ADD COLUMN tasks_left   integer NOT NULL DEFAULT 0 CHECK (tasks_left >= 0);
CREATE INDEX flow_executions_list_idx ON flow_executions (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE execution_tasks (
  flow_execution_id  uuid NOT NULL REFERENCES flow_executions (id) ON DELETE CASCADE,
  task_name          text NOT NULL,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  -- waiting: predecessors unfinished; ready: an attempt is queued or running; the rest are final.
  state              text NOT NULL DEFAULT 'waiting'
                       CHECK (state IN ('waiting', 'ready', 'completed', 'failed', 'skipped', 'cancelled')),
  waiting_on         integer NOT NULL CHECK (waiting_on >= 0),
  -- held: an incoming edge held (its source completed and its condition was true). A task whose
  -- predecessors are all finished runs when held, and is skipped otherwise.
  held               boolean NOT NULL DEFAULT false,
  attempts           integer NOT NULL DEFAULT 0,
  output             jsonb,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (flow_execution_id, task_name)
);

CREATE TABLE task_executions (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  flow_execution_id   uuid NOT NULL REFERENCES flow_executions (id) ON DELETE CASCADE,
  task_name           text NOT NULL CHECK (char_length(task_name) BETWEEN 1 AND 200),
  task_execution_idx  integer NOT NULL CHECK (task_execution_idx >= 0),
  status              text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  input               jsonb,
  output              jsonb,
  error               jsonb,
  started_at          timestamptz,
  completed_at        timestamptz,
  -- The deadline of a running attempt; the sweep fails attempts whose worker vanished.
  timeout_at          timestamptz,
  -- A delay waits until wake_at; the River job that wakes it is scheduled for then.
  wake_at             timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  modified_by         text NOT NULL DEFAULT 'system',
  CONSTRAINT task_executions_attempt_key UNIQUE (flow_execution_id, task_name, task_execution_idx),
  CHECK (output IS NULL OR status = 'completed'),
  CHECK (error IS NULL OR status = 'failed')
);
CREATE INDEX task_executions_list_idx ON task_executions (flow_execution_id, created_at DESC, task_execution_idx DESC);
CREATE INDEX task_executions_overdue_idx ON task_executions (timeout_at) WHERE status = 'running' AND timeout_at IS NOT NULL;

-- +goose Down
DROP TABLE task_executions;
DROP TABLE execution_tasks;
DROP INDEX flow_executions_list_idx;
ALTER TABLE flow_executions DROP COLUMN tasks_left, DROP COLUMN finished_at, DROP COLUMN started_at;
