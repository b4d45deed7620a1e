package billing

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// missing is the 404 of a usage record naming something that is not there (or not the caller's);
// details name the field, so a worker knows which id to fix.
func missing(what, field string) error {
	e := httpx.NotFound(what)
	e.Details = map[string]any{"field": field}
	return e
}

// RecordUsage records usage of a product by one of the caller's flow executions and consumes its
// amount from the organization's credits, in one transaction. Usage that happened is recorded even
// when it takes the balance below zero; only new jobs are refused then.
//
// With an Idempotency-Key, the key is held by a transaction-scoped lock while it is looked up, so two
// concurrent retries cannot both record. A key older than 24 hours is released (the old record keeps
// everything else) and the request is recorded anew, as the contract promises replays only within
// 24 hours.
func (s *Service) RecordUsage(ctx context.Context, req platformapi.RecordUsageRequestObject) (platformapi.RecordUsageResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	key := req.Params.IdempotencyKey
	var hash []byte
	if key != nil {
		// The generated struct is the canonical form of the body: fixed field order, map keys sorted,
		// null and omitted alike, so the same usage sent twice hashes the same however it was spelled.
		canonical, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(canonical)
		hash = sum[:]
	}
	var (
		row    usageRow
		replay bool
	)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if key != nil {
			first, err := claimKey(ctx, tx, p.OrganizationID, *key, hash)
			if err != nil {
				return err
			}
			if first != uuid.Nil {
				replay = true
				row, err = getUsage(ctx, tx, p.OrganizationID, first)
				return err
			}
		}
		cost, err := checkUsage(ctx, tx, p.OrganizationID, b)
		if err != nil {
			return err
		}
		id, err := credits.Record(ctx, tx, credits.Usage{OrganizationID: p.OrganizationID, ProductID: b.ProductId,
			FlowExecutionID: &b.FlowExecutionId, Amount: b.Amount, EstimatedCost: cost, Metadata: derefMap(b.Metadata),
			IdempotencyKey: key, RequestHash: hash, CreatedBy: p.Actor()})
		if err != nil {
			return dbx.Translate(err)
		}
		row, err = getUsage(ctx, tx, p.OrganizationID, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := row.response()
	if replay {
		return platformapi.RecordUsage200JSONResponse(out), err
	}
	return platformapi.RecordUsage201JSONResponse(out), err
}

// claimKey locks the idempotency key for the rest of tx and returns the record it already names, or
// uuid.Nil when the request is to be recorded. The same key with another body is refused.
func claimKey(ctx context.Context, tx *sqlx.Tx, org uuid.UUID, key string, hash []byte) (uuid.UUID, error) {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('usage:' || $1::text || ':' || $2, 0))`,
		org, key); err != nil {
		return uuid.Nil, err
	}
	var prev struct {
		ID    uuid.UUID `db:"id"`
		Hash  []byte    `db:"request_hash"`
		Fresh bool      `db:"fresh"`
	}
	err := tx.GetContext(ctx, &prev, `SELECT id, request_hash, created_at > now() - interval '24 hours' AS fresh
		FROM usage_records WHERE organization_id = $1 AND idempotency_key = $2`, org, key)
	switch {
	case errors.Is(dbx.Translate(err), dbx.ErrNotFound):
		return uuid.Nil, nil
	case err != nil:
		return uuid.Nil, err
	case !prev.Fresh:
		_, err := tx.ExecContext(ctx, `UPDATE usage_records SET idempotency_key = NULL WHERE id = $1`, prev.ID)
		return uuid.Nil, err
	case !bytes.Equal(prev.Hash, hash):
		return uuid.Nil, httpx.NewError(http.StatusConflict, "idempotency_key_reused",
			"this Idempotency-Key was already used for a different usage record")
	}
	return prev.ID, nil
}

// checkUsage checks that the flow execution is the organization's (in any status) and the product
// exists, and returns the estimated cost to record. Both rows are key-share locked, so neither can be
// deleted before the record referring to them commits.
func checkUsage(ctx context.Context, tx *sqlx.Tx, org uuid.UUID, b *platformapi.CreateUsageRequest) (*float64, error) {
	var exec uuid.UUID
	err := tx.GetContext(ctx, &exec, `SELECT id FROM flow_executions WHERE id = $1 AND organization_id = $2 FOR KEY SHARE`,
		b.FlowExecutionId, org)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, missing("flow execution", "flow_execution_id")
	} else if err != nil {
		return nil, err
	}
	// The default cost is computed in numeric, so a rate such as 0.000002 per token is not rounded
	// before it is multiplied.
	var cost *float64
	err = tx.GetContext(ctx, &cost, `SELECT ($2::bigint * estimated_cost_per_unit)::float8 FROM products
		WHERE id = $1 FOR KEY SHARE`, b.ProductId, b.Amount)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, missing("product", "product_id")
	} else if err != nil {
		return nil, dbx.Translate(err)
	}
	if b.EstimatedCost != nil {
		return b.EstimatedCost, nil
	}
	return cost, nil
}

func derefMap(m *map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return *m
}
