-- +goose Up
-- Only a new definition makes a new version of a flow. A change of its other attributes (name,
-- description, status, visibility, settings) is made in place on the latest version, which is the flow's
-- current state; older versions keep the attributes they had when a newer one superseded them.
--
-- A version row can therefore change after its definition was saved, by someone else than its saver.
-- modified_by follows every change; saved_by keeps who saved the definition, whose right to use the
-- credentials it names every attempt of the version checks. A metadata change must not hand that right
-- to whoever renamed the flow.
ALTER TABLE flow_versions ADD COLUMN saved_by text NOT NULL DEFAULT 'system';
UPDATE flow_versions SET saved_by = modified_by;

-- The flow row mirrors its latest version's list columns whoever writes the version: an update in place
-- as well as an insert (the trigger flow_versions_latest).
CREATE TRIGGER flow_versions_latest_update AFTER UPDATE ON flow_versions
  REFERENCING NEW TABLE AS new_versions FOR EACH STATEMENT EXECUTE FUNCTION flows_follow_latest_version();

-- +goose Down
DROP TRIGGER flow_versions_latest_update ON flow_versions;
ALTER TABLE flow_versions DROP COLUMN saved_by;
