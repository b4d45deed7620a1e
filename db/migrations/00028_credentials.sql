-- +goose Up
-- Credentials: secrets for outside services that tasks and integrations use by id. The secret is sealed
-- with AES-GCM under the server's encryption key before it reaches this table, bound to the row's id and
-- organization (the additional data), so a sealed value copied into another row does not open. Nothing
-- references this table yet; integrations and document files will (ON DELETE RESTRICT), and deleting a
-- credential they use then answers 409 in_use.
CREATE TABLE credentials (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  -- The user who created it; null when a service account did (see the contract's user_id).
  user_id          uuid REFERENCES users (id),
  name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  provider         text NOT NULL,
  credential_type  text,
  sealed_secret    bytea NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system',
  CONSTRAINT credentials_org_name_key UNIQUE (organization_id, name)
);
-- The unique constraint's index also serves the list, which is ordered by name then id.
CREATE INDEX credentials_org_provider_idx ON credentials (organization_id, provider, name, id);
CREATE TRIGGER credentials_updated_at BEFORE UPDATE OF name, credential_type, sealed_secret ON credentials
  FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- +goose Down
DROP TABLE credentials;
