-- +goose Up
-- Document files: tables of data an organization uploads as CSV (each successful import a revision) or
-- reads from a registered SQL database. The rows of a CSV document live in a table of the
-- organization's own schema (document_schemas), readable by the organization's own PostgreSQL role
-- and by nobody else; loopwork's tables stay out of that role's reach.
CREATE TABLE document_schemas (
  organization_id  uuid PRIMARY KEY REFERENCES organizations (id),
  schema_name      text NOT NULL UNIQUE,
  role_name        text NOT NULL UNIQUE,
  -- The role's login password, sealed like credentials (additional data: the organization's id).
  sealed_password  bytea NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
  id                  uuid PRIMARY KEY,
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  user_id             uuid REFERENCES users (id) ON DELETE SET NULL,
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  database_type       text NOT NULL CHECK (database_type IN ('csv', 'sql')),
  description         text,
  credential_id       uuid REFERENCES credentials (id) ON DELETE RESTRICT,
  source_table        text,
  status              text NOT NULL CHECK (status IN ('empty', 'uploading', 'processing', 'ready', 'failed')),
  -- The status an expired staged upload returns the document to.
  status_before       text,
  error               text,
  current_revision    uuid,
  current_file_id     uuid,
  current_table_name  text,
  revision_count      integer NOT NULL DEFAULT 0,
  total_rows          bigint NOT NULL DEFAULT 0,
  modified_by         text NOT NULL DEFAULT 'system',
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT documents_org_name_key UNIQUE (organization_id, name),
  CHECK ((database_type = 'sql') = (credential_id IS NOT NULL AND source_table IS NOT NULL))
);
CREATE INDEX documents_org_updated_idx ON documents (organization_id, updated_at DESC, id);

-- A staged file (uploads) becomes a revision when its import is completed; the file stays where it was
-- staged (file_key), so the revision's download is the file as uploaded.
CREATE TABLE document_uploads (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  document_id      uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  file_key         text NOT NULL,
  file_name        text NOT NULL,
  file_size        bigint NOT NULL,
  expires_at       timestamptz NOT NULL,
  completed_at     timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_uploads_document_idx ON document_uploads (document_id);
CREATE INDEX document_uploads_pending_idx ON document_uploads (expires_at) WHERE completed_at IS NULL;

CREATE TABLE document_revisions (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  document_id      uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  upload_id        uuid NOT NULL UNIQUE REFERENCES document_uploads (id) ON DELETE CASCADE,
  status           text NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  table_name       text NOT NULL,
  delimiter        text NOT NULL,
  has_header       boolean NOT NULL,
  columns          text[],
  total_rows       bigint,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz
);
CREATE INDEX document_revisions_document_idx ON document_revisions (document_id, created_at);

-- +goose Down
DROP TABLE document_revisions;
DROP TABLE document_uploads;
DROP TABLE documents;
DROP TABLE document_schemas;
