// Package credits keeps each organization's credit balance: grants add to it, recorded usage consumes
// it. The ledger is credit_grants and usage_records; credit_balances is its running total, written in
// the same transaction as each ledger row and spread over shards so that concurrent writers of one
// organization do not wait on the same row.
package credits

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
)

// JobSubmissionProduct is the built-in product every /v1 job is recorded against (the products row
// named job-submission, which the migrations insert).
var JobSubmissionProduct = uuid.MustParse("00000000-0000-4000-8000-000000000001")

// LLMCallProduct is the product of a language model call by an llm task (one credit a call).
var LLMCallProduct = uuid.MustParse("00000000-0000-4000-8000-000000000002")

// ErrNoCredits means the organization cannot pay for what it asked (402).
var ErrNoCredits = errors.New("the organization has no credits left")

// shard picks a connection's own row of credit_balances (its shard column, 0 to 1023 by a check), one
// no other live connection has (counter_shard, migration 00101): a connection runs one transaction at a
// time, so concurrent writers of one organization never wait on each other's rows.
const shard = `counter_shard()`

// Comfortable is the balance above which concurrent consumers need not be serialised: with at most a
// few hundred requests in flight, none of them can take the balance below zero.
const Comfortable = 1024

// RemainingSQL is the remaining balance of the organization named by the placeholder orgArg, for
// statements that check and spend in one go (see Reserve for the rule they follow).
func RemainingSQL(orgArg string) string {
	return `(SELECT coalesce(sum(granted), 0) - coalesce(sum(consumed), 0) FROM credit_balances WHERE organization_id = ` + orgArg + `)`
}

// ConsumeSQL is an INSERT … SELECT that consumes one credit of org for each row of fromRows, for the
// same statements: org is a placeholder (every row is that organization's) or a column of fromRows
// (each row is its own organization's, for a statement that writes for several). Rows are grouped by
// organization, so no row is written when fromRows is empty and no key is updated twice.
func ConsumeSQL(org, fromRows string) string {
	return `INSERT INTO credit_balances (organization_id, shard, consumed) SELECT ` + org + `, ` + shard + `, count(*)
		FROM ` + fromRows + ` GROUP BY 1
		ON CONFLICT (organization_id, shard) DO UPDATE SET consumed = credit_balances.consumed + EXCLUDED.consumed`
}

// Balance is an organization's totals.
type Balance struct {
	Granted  int64 `db:"granted"`
	Consumed int64 `db:"consumed"`
}

// Remaining is what may still be consumed (negative when usage was recorded past zero).
func (b Balance) Remaining() int64 { return b.Granted - b.Consumed }

// Get sums an organization's shards.
func Get(ctx context.Context, db dbx.DBTX, org uuid.UUID) (Balance, error) {
	var b Balance
	err := db.GetContext(ctx, &b, `SELECT coalesce(sum(granted), 0) AS granted, coalesce(sum(consumed), 0) AS consumed
		FROM credit_balances WHERE organization_id = $1`, org)
	return b, err
}

// Grant records a credit grant and raises the balance, in tx.
func Grant(ctx context.Context, tx dbx.DBTX, org uuid.UUID, amount int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO credit_balances (organization_id, shard, granted) VALUES ($1, `+shard+`, $2)
		ON CONFLICT (organization_id, shard) DO UPDATE SET granted = credit_balances.granted + EXCLUDED.granted`,
		org, amount)
	return err
}

// Usage is one usage record.
type Usage struct {
	OrganizationID  uuid.UUID
	ProductID       uuid.UUID
	FlowExecutionID *uuid.UUID
	JobID           *int64
	Amount          int64
	EstimatedCost   *float64
	Metadata        map[string]any
	IdempotencyKey  *string
	RequestHash     []byte
	CreatedBy       string
}

// Record writes a usage record and consumes its amount, in tx; it does not check the balance (usage
// that happened is recorded even past zero). It returns the record's id.
func Record(ctx context.Context, tx dbx.DBTX, u Usage) (uuid.UUID, error) {
	// jsonb parameters travel as text: with lib/pq's binary_parameters a []byte would be sent as
	// binary jsonb, which it is not.
	var meta *string
	if u.Metadata != nil {
		b, err := json.Marshal(u.Metadata)
		if err != nil {
			return uuid.Nil, err
		}
		s := string(b)
		meta = &s
	}
	var id uuid.UUID
	err := tx.GetContext(ctx, &id, `
		WITH rec AS (
		  INSERT INTO usage_records (organization_id, product_id, flow_execution_id, job_id, amount, estimated_cost,
		                             metadata, idempotency_key, request_hash, created_by)
		  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id
		), bal AS (
		  INSERT INTO credit_balances (organization_id, shard, consumed) VALUES ($1, `+shard+`, $5)
		  ON CONFLICT (organization_id, shard) DO UPDATE SET consumed = credit_balances.consumed + EXCLUDED.consumed
		)
		SELECT id FROM rec`,
		u.OrganizationID, u.ProductID, u.FlowExecutionID, u.JobID, u.Amount, u.EstimatedCost, meta,
		u.IdempotencyKey, u.RequestHash, u.CreatedBy)
	return id, err
}

// Reserve checks, in tx, that the organization can pay amount, and keeps the answer true until tx
// ends. Far from zero that is one read; near zero it serialises the organization's consumers with a
// transaction-scoped lock, so the last credits cannot be spent twice.
func Reserve(ctx context.Context, tx dbx.DBTX, org uuid.UUID, amount int64) error {
	b, err := Get(ctx, tx, org)
	if err != nil {
		return err
	}
	if b.Remaining() >= Comfortable+amount {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('credits:' || $1::text, 0))`, org); err != nil {
		return err
	}
	if b, err = Get(ctx, tx, org); err != nil {
		return err
	}
	if b.Remaining() < amount {
		return ErrNoCredits
	}
	return nil
}
