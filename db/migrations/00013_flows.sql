-- +goose Up
-- Flows as the /api flows routes serve them: the latest version's list columns on the flow itself,
-- whether each version is valid, views of flow versions, and invitations to flows.

-- A version records whether its definition passed validation when it was saved: the engine and /v1
-- apps only ever run valid versions, and they need not validate again to know it.
ALTER TABLE flow_versions
  ADD COLUMN valid boolean NOT NULL DEFAULT false,
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- Definitions of large flows are megabytes: lz4 compresses and decompresses them several times faster
-- than the default pglz, where the server was built with it.
-- +goose StatementBegin
DO $$ BEGIN
  ALTER TABLE flow_versions ALTER COLUMN definition SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN NULL;
END $$;
-- +goose StatementEnd

-- The list of flows reads one table: the latest version's name, description, status and visibility are
-- kept on the flow by the trigger below, whoever writes the version, so a page of 50 out of 100,000
-- flows and its total come from the flows table and its indexes alone.
ALTER TABLE flows
  ADD COLUMN display_name text,
  ADD COLUMN description  text,
  ADD COLUMN status       text NOT NULL DEFAULT 'draft',
  ADD COLUMN visibility   text NOT NULL DEFAULT 'organization';

-- Statement-level, so that a statement writing many versions updates their flows in one join.
-- +goose StatementBegin
CREATE FUNCTION flows_follow_latest_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE flows f SET display_name = v.display_name, description = v.description, status = v.status,
    visibility = coalesce(v.visibility, 'organization'), updated_at = v.updated_at
  FROM new_versions v WHERE f.id = v.flow_id AND f.latest_version = v.version;
  RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER flow_versions_latest AFTER INSERT ON flow_versions
  REFERENCING NEW TABLE AS new_versions FOR EACH STATEMENT EXECUTE FUNCTION flows_follow_latest_version();

UPDATE flows f SET display_name = v.display_name, description = v.description, status = v.status,
  visibility = coalesce(v.visibility, 'organization')
FROM flow_versions v WHERE v.flow_id = f.id AND v.version = f.latest_version;

-- Totals of flow lists without a text search come from counts the next trigger keeps per organization,
-- visibility and status, instead of counting 100,000 rows for every page.
CREATE TABLE flow_counts (
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  visibility       text NOT NULL,
  status           text NOT NULL,
  n                bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, visibility, status)
);

-- Statement-level with transition tables: a statement changing many flows moves each count once, and
-- the counts are locked in key order, so concurrent writers cannot deadlock on them.
-- +goose StatementBegin
CREATE FUNCTION flows_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, count(*) FROM new_flows WHERE deleted_at IS NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, -count(*) FROM old_flows WHERE deleted_at IS NULL
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    INSERT INTO flow_counts AS c (organization_id, visibility, status, n)
    SELECT organization_id, visibility, status, sum(d) FROM (
      SELECT organization_id, visibility, status, -1 AS d FROM old_flows WHERE deleted_at IS NULL
      UNION ALL
      SELECT organization_id, visibility, status, 1 FROM new_flows WHERE deleted_at IS NULL) moved
    GROUP BY 1, 2, 3 HAVING sum(d) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (organization_id, visibility, status) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER flows_counted_insert AFTER INSERT ON flows
  REFERENCING NEW TABLE AS new_flows FOR EACH STATEMENT EXECUTE FUNCTION flows_count();
CREATE TRIGGER flows_counted_update AFTER UPDATE ON flows
  REFERENCING OLD TABLE AS old_flows NEW TABLE AS new_flows FOR EACH STATEMENT EXECUTE FUNCTION flows_count();
CREATE TRIGGER flows_counted_delete AFTER DELETE ON flows
  REFERENCING OLD TABLE AS old_flows FOR EACH STATEMENT EXECUTE FUNCTION flows_count();
INSERT INTO flow_counts (organization_id, visibility, status, n)
SELECT organization_id, visibility, status, count(*) FROM flows WHERE deleted_at IS NULL
GROUP BY organization_id, visibility, status;

DROP INDEX flows_org_idx;
CREATE INDEX flows_list_idx ON flows (organization_id, updated_at DESC, id DESC) INCLUDE (visibility, status, created_by)
  WHERE deleted_at IS NULL;
CREATE INDEX flows_public_idx ON flows (updated_at DESC, id DESC) WHERE deleted_at IS NULL AND visibility = 'public';
-- Private flows are the exception a list must look up per caller: the creator's own.
CREATE INDEX flows_creator_idx ON flows (created_by) WHERE deleted_at IS NULL AND visibility = 'private';
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX flows_search_idx ON flows USING gin ((lower(coalesce(display_name, '') || ' ' || coalesce(description, ''))) gin_trgm_ops)
  WHERE deleted_at IS NULL;

-- Users invited to a flow may see it although it is private, change it, and review its human review tasks.
CREATE TABLE flow_invitations (
  flow_id          uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  PRIMARY KEY (flow_id, user_id)
);
CREATE INDEX flow_invitations_user_idx ON flow_invitations (user_id);

-- A view shows the tasks of one flow version in an order, some hidden; at most one per version is its default.
CREATE TABLE flow_views (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  flow_id          uuid NOT NULL,
  flow_version     integer NOT NULL,
  view_name        text NOT NULL CHECK (char_length(view_name) BETWEEN 1 AND 255),
  ordered_tasks    text[] NOT NULL DEFAULT '{}',
  hidden_tasks     text[] NOT NULL DEFAULT '{}',
  is_default       boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  FOREIGN KEY (flow_id, flow_version) REFERENCES flow_versions (flow_id, version) ON DELETE CASCADE,
  CONSTRAINT flow_views_name_key UNIQUE (flow_id, flow_version, view_name)
);
CREATE UNIQUE INDEX flow_views_default_key ON flow_views (flow_id, flow_version) WHERE is_default;
CREATE INDEX flow_views_org_idx ON flow_views (organization_id, flow_id, flow_version DESC);

-- Counting a flow's executions over its versions, deleted ones excluded.
CREATE INDEX flow_executions_live_idx ON flow_executions (flow_id) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX flow_executions_live_idx;
DROP TABLE flow_views;
DROP TABLE flow_invitations;
DROP INDEX flows_search_idx;
DROP INDEX flows_creator_idx;
DROP INDEX flows_public_idx;
DROP INDEX flows_list_idx;
DROP TRIGGER flows_counted_delete ON flows;
DROP TRIGGER flows_counted_update ON flows;
DROP TRIGGER flows_counted_insert ON flows;
DROP FUNCTION flows_count();
DROP TABLE flow_counts;
CREATE INDEX flows_org_idx ON flows (organization_id, created_at DESC) WHERE deleted_at IS NULL;
DROP TRIGGER flow_versions_latest ON flow_versions;
DROP FUNCTION flows_follow_latest_version();
ALTER TABLE flows DROP COLUMN visibility, DROP COLUMN status, DROP COLUMN description, DROP COLUMN display_name;
ALTER TABLE flow_versions DROP COLUMN updated_at, DROP COLUMN valid;
