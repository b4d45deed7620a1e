-- +goose Up
-- Credits: grants add, usage consumes. usage_records and credit_grants are the ledger; credit_balances
-- is its running total per organization, kept in the same transactions, split into shards so that
-- concurrent job submissions of one organization do not queue on a single row.

CREATE TABLE products (
  id                       uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name                     citext NOT NULL UNIQUE CHECK (char_length(name::text) BETWEEN 1 AND 200),
  unit                     text NOT NULL CHECK (char_length(unit) BETWEEN 1 AND 50),
  provider                 text NOT NULL CHECK (char_length(provider) BETWEEN 1 AND 100),
  description              text CHECK (char_length(description) <= 1000),
  estimated_cost_per_unit  numeric CHECK (estimated_cost_per_unit >= 0),
  metadata                 jsonb,
  created_at               timestamptz NOT NULL DEFAULT now(),
  modified_at              timestamptz NOT NULL DEFAULT now(),
  modified_by              text NOT NULL DEFAULT 'system'
);

-- The product every /v1 job submission is recorded against (one unit, one credit, per job).
INSERT INTO products (id, name, unit, provider, description)
VALUES ('00000000-0000-4000-8000-000000000001', 'job-submission', 'job', 'loopwork',
        'One job submitted to a /v1 app; each costs one credit.');

CREATE TABLE credit_grants (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  amount           bigint NOT NULL CHECK (amount > 0),
  reason           text NOT NULL CHECK (char_length(reason) <= 500),
  granted_by       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  modified_by      text NOT NULL DEFAULT 'system'
);
CREATE INDEX credit_grants_org_idx ON credit_grants (organization_id, created_at DESC);

CREATE TABLE usage_records (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  product_id         uuid NOT NULL REFERENCES products (id),
  flow_execution_id  uuid REFERENCES flow_executions (id),
  job_id             bigint,
  amount             bigint NOT NULL CHECK (amount > 0),
  estimated_cost     numeric CHECK (estimated_cost >= 0),
  metadata           jsonb,
  idempotency_key    text,
  request_hash       bytea,
  created_by         text NOT NULL DEFAULT 'system',
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_records_org_idx ON usage_records (organization_id, created_at DESC);
CREATE INDEX usage_records_execution_idx ON usage_records (flow_execution_id) WHERE flow_execution_id IS NOT NULL;
CREATE UNIQUE INDEX usage_records_idempotency_key ON usage_records (organization_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE TABLE credit_balances (
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  shard            smallint NOT NULL CHECK (shard BETWEEN 0 AND 15),
  granted          bigint NOT NULL DEFAULT 0,
  consumed         bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, shard)
);

-- +goose Down
DROP TABLE credit_balances;
DROP TABLE usage_records;
DROP TABLE credit_grants;
DROP TABLE products;
