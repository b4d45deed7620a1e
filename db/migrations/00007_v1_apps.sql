-- +goose Up
-- App names are unique within an organization, ignoring case (the contract answers 400 when a name is
-- taken): two apps called "Invoices" and "invoices" would be told apart by nobody.
CREATE UNIQUE INDEX apps_org_name_key ON apps (organization_id, lower(name));

-- +goose Down
DROP INDEX apps_org_name_key;
