package queue

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Heartbeat names long-running work whose worker proves it is alive by setting beat_at on the work's
// row as it goes. River rescues a job whose process died only after RescueStuckJobsAfter, far too late
// for an export or a bulk operation someone is waiting on; the beat lets a sweep notice within seconds.
type Heartbeat struct {
	// Table holds one row per piece of work, with the columns id, status ('QUEUED' or 'RUNNING' while
	// unfinished), created_at and beat_at. It is a constant of the caller, never user input.
	Table string
	// Kind is the River job kind that runs a row; its args carry the row's id as "id".
	Kind string
}

// RescueLost gives a new run to up to 100 unfinished rows of h.Table whose worker was lost: no beat for
// silence and no job of h.Kind for them waiting in the queue. Each row, in a transaction of its own,
// gets beat_at = now(), so the next sweep leaves it to the new run while that one starts, and insert
// queues the new run. Whether a run that was not dead after all can clash with the new one is the
// caller's to rule out (its own lock or row order), since only it knows what a run writes. It returns
// how many rows got a new run.
func RescueLost(ctx context.Context, db *sqlx.DB, h Heartbeat, silence time.Duration, insert func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error) (int, error) {
	var lost []uuid.UUID
	if err := db.SelectContext(ctx, &lost, fmt.Sprintf(`SELECT t.id FROM %s t
		WHERE t.status IN ('QUEUED', 'RUNNING') AND coalesce(t.beat_at, t.created_at) < now() - make_interval(secs => $1)
		  AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.state IN ('available', 'scheduled', 'retryable')
		                  AND j.kind = %s AND j.args ->> 'id' = t.id::text)
		LIMIT 100`, h.Table, pq.QuoteLiteral(h.Kind)), silence.Seconds()); err != nil {
		return 0, err
	}
	beat := fmt.Sprintf(`UPDATE %s SET beat_at = now() WHERE id = $1`, h.Table)
	for i, id := range lost {
		err := dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, beat, id); err != nil {
				return err
			}
			return insert(ctx, tx.Tx, id)
		})
		if err != nil {
			return i, err
		}
	}
	return len(lost), nil
}

// Probe is SQL for a sweep's probe (see Sweep): two columns, "<as>_lost" (is a row silent for silence
// now, which RescueLost would look at) and "<as>_at" (when the earliest row not yet silent becomes so;
// NULL for none). silence is the statement's parameter of that number, in seconds ($1, say).
func (h Heartbeat) Probe(as, silence string) string {
	return fmt.Sprintf(`EXISTS (SELECT 1 FROM %[1]s WHERE status IN ('QUEUED', 'RUNNING')
			AND coalesce(beat_at, created_at) < now() - make_interval(secs => %[2]s)) AS %[3]s_lost,
		(SELECT min(coalesce(beat_at, created_at)) + make_interval(secs => %[2]s) FROM %[1]s
			WHERE status IN ('QUEUED', 'RUNNING') AND coalesce(beat_at, created_at) >= now() - make_interval(secs => %[2]s)) AS %[3]s_at`,
		h.Table, silence, as)
}
