-- +goose Up
-- Servers keep callers' principals and app grants in memory (internal/memo) and must forget them when
-- the rows they come from change, on whichever replica the change was made. These statement triggers
-- notify the channel loopwork_access at the commit of any transaction that changed such rows; the
-- notification carries the table's name only, since servers forget everything they keep on hearing
-- one. Columns that principals do not read (last_login_at, last_used_at, refreshed_at, …) are left
-- out of the UPDATE OF lists, so sign-ins and key use do not make servers forget.
-- +goose StatementBegin
CREATE FUNCTION notify_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loopwork_access', TG_TABLE_NAME);
  RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER organizations_access_changed
  AFTER UPDATE OF is_active OR DELETE OR TRUNCATE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER users_access_changed
  AFTER UPDATE OF organization_id, email, role, is_active, is_service_account OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER api_keys_access_changed
  AFTER UPDATE OF organization_id, user_id, service_account_id, token_hash, revoked_at OR DELETE OR TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER auth_sessions_access_changed
  AFTER UPDATE OF user_id, organization_id, revoked_at OR DELETE OR TRUNCATE ON auth_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER apps_access_changed
  AFTER UPDATE OR DELETE OR TRUNCATE ON apps
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER app_workers_access_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_workers
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER app_worker_groups_access_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_worker_groups
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER worker_group_members_access_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON worker_group_members
  FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();

-- +goose Down
DROP TRIGGER worker_group_members_access_changed ON worker_group_members;
DROP TRIGGER app_worker_groups_access_changed ON app_worker_groups;
DROP TRIGGER app_workers_access_changed ON app_workers;
DROP TRIGGER apps_access_changed ON apps;
DROP TRIGGER auth_sessions_access_changed ON auth_sessions;
DROP TRIGGER api_keys_access_changed ON api_keys;
DROP TRIGGER users_access_changed ON users;
DROP TRIGGER organizations_access_changed ON organizations;
DROP FUNCTION notify_access_change();
