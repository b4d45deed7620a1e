package bulk

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Rescue gives a new run to the unfinished operations whose worker was lost: no batch has committed for
// silence (a live worker commits one every few seconds) and no run of theirs waits in the queue — the
// process running it was killed, and River would rescue its job only much later. insert queues a run
// (an OperationArgs job) in tx. The new run resumes after the last committed batch; were the old one
// alive after all, the two take turns on the operation's row and no batch is done twice.
func Rescue(ctx context.Context, db *sqlx.DB, silence time.Duration, insert func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error) error {
	var lost []uuid.UUID
	if err := db.SelectContext(ctx, &lost, `SELECT o.id FROM bulk_operations o
		WHERE o.status IN ('QUEUED', 'RUNNING') AND coalesce(o.beat_at, o.created_at) < now() - make_interval(secs => $1)
		  AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.state IN ('available', 'scheduled', 'retryable')
		                  AND j.kind = 'bulk_operation' AND j.args ->> 'id' = o.id::text)
		LIMIT 100`, silence.Seconds()); err != nil {
		return err
	}
	for _, id := range lost {
		err := dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE bulk_operations SET beat_at = now() WHERE id = $1`, id); err != nil {
				return err
			}
			return insert(ctx, tx.Tx, id)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
