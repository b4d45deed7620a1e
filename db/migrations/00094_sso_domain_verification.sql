-- +goose Up
-- A single sign-on domain routes sign-in only once the organization has proved it owns it with a DNS
-- TXT record. Until then any number of providers may claim it, so a claim made first by someone else
-- blocks no one; once one provider has verified it, it is that provider's alone. Domains claimed before
-- this change were never proved, so they start unverified too.
ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey;
ALTER TABLE sso_domains
  ADD COLUMN verification_token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', ''),
  ADD COLUMN verified_at timestamptz;
ALTER TABLE sso_domains ALTER COLUMN verification_token DROP DEFAULT;
ALTER TABLE sso_domains ADD PRIMARY KEY (provider_id, domain);
CREATE UNIQUE INDEX sso_domains_verified_idx ON sso_domains (domain) WHERE verified_at IS NOT NULL;
CREATE INDEX sso_domains_domain_idx ON sso_domains (domain);

-- +goose Down
DROP INDEX sso_domains_domain_idx;
DROP INDEX sso_domains_verified_idx;
ALTER TABLE sso_domains DROP CONSTRAINT sso_domains_pkey;
DELETE FROM sso_domains a USING sso_domains b
  WHERE a.domain = b.domain AND a.provider_id <> b.provider_id AND (a.verified_at IS NULL AND b.verified_at IS NOT NULL
    OR (a.verified_at IS NULL) = (b.verified_at IS NULL) AND a.provider_id > b.provider_id);
ALTER TABLE sso_domains DROP COLUMN verified_at, DROP COLUMN verification_token;
ALTER TABLE sso_domains ADD PRIMARY KEY (domain);
