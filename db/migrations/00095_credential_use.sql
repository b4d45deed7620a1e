-- +goose Up
-- Who may use a credential, and where it may be sent. A credential is private to the user who created
-- it (and the organization's admins) until its owner shares it with the organization; saving a flow
-- that names it, and each attempt of a task that uses it, check that right. allowed_domains binds it
-- to the hosts it may be sent to: '*' is any host, '*.example.com' a subdomain, 'example.com' that
-- host alone; an empty list sends it nowhere. Existing credentials keep working as they did for their
-- creators (any host), and stay usable by others only once shared.
ALTER TABLE credentials
  ADD COLUMN shared boolean NOT NULL DEFAULT false,
  ADD COLUMN allowed_domains text[] NOT NULL DEFAULT '{*}';

-- +goose Down
ALTER TABLE credentials DROP COLUMN shared, DROP COLUMN allowed_domains;
