package lifecycle

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/state"
)

// Expire ends the unfinished jobs whose deadline or time to live (expires_at) has passed, a batch per
// transaction: their executions are stopped first (in the engine's lock order, see HaltMany) and the
// jobs become EXPIRED (processing state ERROR, labeling lock released) with a STATUS_CHANGED history
// row. It returns how many jobs expired.
func (s *Service) Expire(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, err := s.expireBatch(ctx)
		total += n
		if err != nil || n < batchSize {
			return total, err
		}
	}
}

func (s *Service) expireBatch(ctx context.Context) (int64, error) {
	var n int64
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var due []struct {
			App  uuid.UUID  `db:"app_id"`
			ID   int64      `db:"id"`
			Exec *uuid.UUID `db:"flow_execution_id"`
		}
		if err := tx.SelectContext(ctx, &due, `SELECT app_id, id, flow_execution_id FROM jobs
			WHERE expires_at < now() AND status IN ('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED')
			ORDER BY expires_at LIMIT $1`, batchSize); err != nil || len(due) == 0 {
			return err
		}
		apps, ids := make([]uuid.UUID, len(due)), make([]int64, len(due))
		var execs []uuid.UUID
		for i, d := range due {
			apps[i], ids[i] = d.App, d.ID
			if d.Exec != nil {
				execs = append(execs, *d.Exec)
			}
		}
		// The jobs expire below; their executions are only stopped.
		if _, err := run.HaltMany(ctx, tx, run.Halt{IDs: execs, To: state.ExecFailed, Actor: "system",
			Why: run.Stopped("its job expired"), Quiet: true}); err != nil {
			return err
		}
		return tx.GetContext(ctx, &n, `WITH moved AS (
				UPDATE jobs j SET status = 'EXPIRED', processing_state = 'ERROR', assigned_to = NULL,
					lock_expires_at = NULL, updated_at = now()
				FROM (SELECT * FROM unnest($1::uuid[], $2::bigint[]) AS d (app, id)) d, LATERAL (
					SELECT status FROM jobs WHERE app_id = d.app AND id = d.id) prev
				WHERE j.app_id = d.app AND j.id = d.id AND j.expires_at < now()
				  AND j.status IN ('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED')
				RETURNING j.id, j.app_id, j.organization_id, prev.status),
			history AS (
				INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status)
				SELECT id, app_id, organization_id, 'STATUS_CHANGED', status, 'EXPIRED' FROM moved)
			SELECT count(*) FROM moved`, pq.Array(apps), pq.Array(ids))
	})
	return n, err
}
