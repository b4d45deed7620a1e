-- +goose Up
-- Identity and tenancy: every tenant row carries organization_id, the distribution key of the schema.

CREATE TABLE organizations (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name         citext NOT NULL CHECK (btrim(name::text) <> '' AND char_length(name::text) <= 200),
  is_active    boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  modified_at  timestamptz NOT NULL DEFAULT now(),
  modified_by  text NOT NULL DEFAULT 'system'
);
CREATE UNIQUE INDEX organizations_name_key ON organizations (name);

-- A user is a person or a service account (role integration, no password) of one organization.
-- Status is derived, not stored: deactivated when is_active is false, invited while a person has no
-- password yet, active otherwise.
CREATE TABLE users (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  email               citext NOT NULL,
  first_name          text NOT NULL CHECK (char_length(first_name) BETWEEN 1 AND 100),
  last_name           text NOT NULL CHECK (char_length(last_name) BETWEEN 1 AND 100),
  role                text NOT NULL CHECK (role IN ('org_admin', 'backoffice', 'app_user', 'integration')),
  is_active           boolean NOT NULL DEFAULT true,
  is_service_account  boolean NOT NULL DEFAULT false,
  password_hash       text,
  email_confirmed_at  timestamptz,
  last_login_at       timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  modified_by         text NOT NULL DEFAULT 'system',
  UNIQUE (organization_id, email)
);
CREATE INDEX users_email_idx ON users (email);
CREATE TRIGGER users_updated_at BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Sessions back refresh tokens; revoking one refuses its access tokens too (they carry session_id).
CREATE TABLE auth_sessions (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  refreshed_at     timestamptz,
  revoked_at       timestamptz,
  user_agent       text,
  ip               text
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id) WHERE revoked_at IS NULL;

-- Refresh tokens are stored as SHA-256 hashes. Each is used once: rotation sets used_at and issues
-- a successor; presenting a used one again revokes the session (reuse detection).
CREATE TABLE auth_refresh_tokens (
  token_hash   bytea PRIMARY KEY,
  session_id   uuid NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX auth_refresh_tokens_session_idx ON auth_refresh_tokens (session_id);

-- Signing keys are shared by every replica; private keys are sealed with the configured encryption key.
-- A key signs from activated_at until a newer key is activated, and is published in the JWKS until
-- retire_at (its last token's expiry).
CREATE TABLE auth_signing_keys (
  kid           text PRIMARY KEY,
  algorithm     text NOT NULL,
  private_key   bytea NOT NULL,
  public_jwk    jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  activated_at  timestamptz NOT NULL,
  retire_at     timestamptz
);

-- One-time links (invitation, recovery), stored hashed.
CREATE TABLE auth_link_tokens (
  token_hash   bytea PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('invite', 'recovery')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX auth_link_tokens_user_idx ON auth_link_tokens (user_id, kind) WHERE used_at IS NULL;

-- API keys: high-entropy tokens, so a SHA-256 hash is enough to store them safely and find them fast.
-- A key belongs to its user, or to a service account; exactly one of the two is set.
CREATE TABLE api_keys (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  user_id             uuid REFERENCES users (id),
  service_account_id  uuid REFERENCES users (id),
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description         text,
  token_prefix        text NOT NULL,
  token_hash          bytea NOT NULL UNIQUE,
  last_used_at        timestamptz,
  revoked_at          timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  modified_by         text NOT NULL DEFAULT 'system',
  CHECK ((user_id IS NULL) <> (service_account_id IS NULL))
);
CREATE INDEX api_keys_org_idx ON api_keys (organization_id, created_at DESC);
-- Recording use (last_used_at) is not a change of the key, so only real changes move updated_at.
CREATE TRIGGER api_keys_updated_at BEFORE UPDATE OF name, description, revoked_at ON api_keys FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Fixed-window counters for rate limits that must hold across replicas (sign-in, resend-invite).
CREATE TABLE rate_limit_counters (
  key           text NOT NULL,
  window_start  timestamptz NOT NULL,
  count         integer NOT NULL,
  PRIMARY KEY (key, window_start)
);

-- Outgoing e-mail. Rows are written in the same transaction as the change that causes them, and a
-- River job delivers them; with no SMTP server configured they are logged and kept here for admins.
CREATE TABLE mail_outbox (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid REFERENCES organizations (id),
  recipient        text NOT NULL,
  subject          text NOT NULL,
  text_body        text NOT NULL,
  html_body        text,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz
);
CREATE INDEX mail_outbox_org_idx ON mail_outbox (organization_id, created_at DESC);

-- SAML single sign-on providers; a domain belongs to at most one provider platform-wide.
CREATE TABLE sso_providers (
  id                 text PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  type               text NOT NULL DEFAULT 'saml',
  metadata_url       text,
  metadata_xml       text,
  metadata_xml_hash  text,
  entity_id          text,
  attribute_mapping  jsonb,
  is_active          boolean NOT NULL DEFAULT true,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  modified_by        text NOT NULL DEFAULT 'system'
);
CREATE INDEX sso_providers_org_idx ON sso_providers (organization_id, created_at);
CREATE TRIGGER sso_providers_updated_at BEFORE UPDATE ON sso_providers FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE sso_domains (
  domain           citext PRIMARY KEY,
  provider_id      text NOT NULL REFERENCES sso_providers (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id)
);
CREATE INDEX sso_domains_provider_idx ON sso_domains (provider_id);

-- +goose Down
DROP TABLE sso_domains;
DROP TABLE sso_providers;
DROP TABLE mail_outbox;
DROP TABLE rate_limit_counters;
DROP TABLE api_keys;
DROP TABLE auth_link_tokens;
DROP TABLE auth_signing_keys;
DROP TABLE auth_refresh_tokens;
DROP TABLE auth_sessions;
DROP TABLE users;
DROP TABLE organizations;
