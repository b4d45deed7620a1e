-- +goose Up
-- Each organization's documents live in a PostgreSQL database of their own, reached by a login role of
-- their own, on loopwork's cluster or on the one LOOPWORK_DOCUMENTS_DATABASE_URL names: advisory locks,
-- NOTIFY channels and catalogs are per database, so tenant SQL there reaches nothing of loopwork's or of
-- another organization's. Both names are random, so that neither reveals whose they are.
CREATE TABLE document_databases (
  organization_id  uuid PRIMARY KEY REFERENCES organizations (id),
  database_name    text NOT NULL UNIQUE,
  role_name        text NOT NULL UNIQUE,
  -- The role's login password, sealed like credentials (additional data: the organization's id).
  sealed_password  bytea NOT NULL,
  -- False until the database, the role and their grants are all in place; a creation that failed
  -- half-way is finished by the next one, with the same names.
  ready            boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- The roles of earlier versions log in to loopwork's own database, where their schemas are: they lose
-- LOGIN at once. The server moves their tables to the organizations' new databases, then drops the
-- schemas, the roles and the rows of document_schemas.
-- +goose StatementBegin
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT s.role_name FROM document_schemas s JOIN pg_roles p ON p.rolname = s.role_name WHERE p.rolcanlogin LOOP
    EXECUTE format('ALTER ROLE %I NOLOGIN', r.role_name);
  END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE document_databases;
