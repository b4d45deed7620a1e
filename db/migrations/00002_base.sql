-- +goose Up
-- citext gives case-insensitive e-mail addresses and names with ordinary equality and unique indexes.
CREATE EXTENSION IF NOT EXISTS citext;

-- set_updated_at keeps updated_at honest without every UPDATE statement having to remember it.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION set_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS set_updated_at();
DROP EXTENSION IF EXISTS citext;
