-- +goose Up
-- A verified domain stays its provider's only while the organization still controls it: its TXT record
-- is looked up again once a day. checked_at is when DNS last answered for it, next_check_at when it is
-- due again, failed_checks how many answers in a row lacked the record; at 3 the domain goes back to
-- unverified, stops routing sign-in and is free for its new owner. Domains verified before this
-- change count as checked when they were verified, so they are due at once.
ALTER TABLE sso_domains
  ADD COLUMN checked_at timestamptz,
  ADD COLUMN next_check_at timestamptz,
  ADD COLUMN failed_checks integer NOT NULL DEFAULT 0;
UPDATE sso_domains SET checked_at = verified_at, next_check_at = verified_at + interval '1 day'
  WHERE verified_at IS NOT NULL;
CREATE INDEX sso_domains_next_check_idx ON sso_domains (next_check_at) WHERE verified_at IS NOT NULL;

-- +goose Down
DROP INDEX sso_domains_next_check_idx;
ALTER TABLE sso_domains DROP COLUMN checked_at, DROP COLUMN next_check_at, DROP COLUMN failed_checks;
