package jobs

// Writing a submitted job with the credit it costs: in one statement while the organization's balance is
// comfortable, under the balance's lock otherwise.

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/v1/access"
)

const jobInsert = `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, metadata, tags, batch_id,
	priority, created_by, expires_at, onboarding_code, flow_execution_id)`

const jobValues = `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, coalesce($11::timestamptz, now() + make_interval(secs => $12::int)), $13, $14`

func jobArgs(g *access.Grant, p *auth.Principal, sub submission, status, processing string) []any {
	return []any{g.App.OrganizationID, g.App.ID, status, processing, sub.input, sub.metadata, pq.StringArray(sub.tags),
		sub.batchID, sub.priority, authorID(p), sub.deadline, sub.ttlSeconds, sub.onboarding, sub.execution}
}

// insertTx writes the job, its usage record and the credit it consumes in tx: in one statement while
// the balance is comfortable, otherwise after Reserve has made sure of the credit under its lock.
func (s *Service) insertTx(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, sub submission, status, processing string, out *v1api.JobSubmitted) error {
	if ok, err := insertPaid(ctx, tx, g, p, sub, status, processing, out); ok || err != nil {
		return err
	}
	if err := credits.Reserve(ctx, tx, g.App.OrganizationID, 1); err != nil {
		return err
	}
	if err := insertJob(ctx, tx, g, p, sub, status, processing, out); err != nil {
		return err
	}
	_, err := credits.Record(ctx, tx, credits.Usage{OrganizationID: g.App.OrganizationID,
		ProductID: credits.JobSubmissionProduct, JobID: &out.Id, Amount: 1, CreatedBy: p.Actor()})
	return err
}

// insertPaid is the common case in one statement, so one round trip and no explicit transaction: while
// the organization's balance is comfortable, the job, its usage record and the credit it consumes are
// written together. It reports false, writing nothing, when the balance is near zero; then the
// careful path (Reserve under a lock) decides.
func insertPaid(ctx context.Context, db sqlx.QueryerContext, g *access.Grant, p *auth.Principal, sub submission, status, processing string, out *v1api.JobSubmitted) (bool, error) {
	args := append(jobArgs(g, p, sub, status, processing), credits.JobSubmissionProduct, p.Actor(), credits.Comfortable+1)
	err := db.QueryRowxContext(ctx, `
		WITH job AS (
		  `+jobInsert+` SELECT `+jobValues+` WHERE `+credits.RemainingSQL("$1")+` >= $17
		  RETURNING id, created_at, expires_at
		), usage AS (
		  INSERT INTO usage_records (organization_id, product_id, job_id, amount, created_by)
		  SELECT $1, $15, job.id, 1, $16 FROM job
		), spend AS (
		  `+credits.ConsumeSQL("$1::uuid", "job")+`
		)
		SELECT id, created_at, expires_at FROM job`, args...).Scan(&out.Id, &out.CreatedAt, &out.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func insertJob(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, sub submission, status, processing string, out *v1api.JobSubmitted) error {
	return tx.QueryRowxContext(ctx, jobInsert+` VALUES (`+jobValues+`) RETURNING id, created_at, expires_at`,
		jobArgs(g, p, sub, status, processing)...).Scan(&out.Id, &out.CreatedAt, &out.ExpiresAt)
}
