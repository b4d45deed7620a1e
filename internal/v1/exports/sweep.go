package exports

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/queue"
)

// Rescue gives a new run to unfinished exports whose worker was lost: no heartbeat for silence (a
// live worker beats every second) and no run of theirs waiting in the queue. The new run starts the
// file over; were the old one alive after all, the advisory lock lets only one of them write.
func Rescue(ctx context.Context, db *sqlx.DB, silence time.Duration, insert func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error) (int, error) {
	return queue.RescueLost(ctx, db, heartbeat, silence, insert)
}

// heartbeat is how an export's worker proves it alive (see queue.Heartbeat).
var heartbeat = queue.Heartbeat{Table: "exports", Kind: Args{}.Kind()}

// Expire removes the files of exports past expires_at and marks them EXPIRED, and returns how many.
func Expire(ctx context.Context, db *sqlx.DB, files blob.Store) (int, error) {
	var due []struct {
		ID  uuid.UUID `db:"id"`
		Key string    `db:"storage_key"`
	}
	if err := db.SelectContext(ctx, &due, `SELECT id, storage_key FROM exports
		WHERE status = 'SUCCEEDED' AND expires_at <= now() ORDER BY expires_at LIMIT 100`); err != nil {
		return 0, err
	}
	for i, d := range due {
		// The row goes EXPIRED first: the link route stops handing out links before the file goes.
		if _, err := db.ExecContext(ctx, `UPDATE exports SET status = 'EXPIRED' WHERE id = $1 AND status = 'SUCCEEDED'`, d.ID); err != nil {
			return i, err
		}
		if err := files.Delete(ctx, d.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return i, err
		}
	}
	return len(due), nil
}

// sweepEvery is how often lost runs are rescued and expired files removed while there is work about.
const sweepEvery = 5 * time.Second

// sweepIdle is the longest the sweep waits when it finds nothing (see queue.Sweep). It reads when the
// earliest unfinished export would fall silent and when the earliest file expires, and runs then; an
// export starts with a River job, whose insert notification wakes the sweep on the leader. So
// sweepIdle bounds only how late it notices a run lost without that notification having been heard.
const sweepIdle = time.Minute

// sweepArgs is a job that runs the sweep once. The leader no longer enqueues it periodically (see
// Sweep); the worker stays for jobs an older version left queued and for an operator's retry.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "exports_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	s *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if _, err := w.s.rescue(ctx); err != nil {
		return err
	}
	_, err := Expire(ctx, w.s.d.DB, w.s.d.Files)
	return err
}

func (s *Service) rescue(ctx context.Context) (int, error) {
	return Rescue(ctx, s.d.DB, s.d.Silence, func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error {
		_, err := s.d.Queue.InsertTx(ctx, tx, Args{ID: id}, nil)
		return err
	})
}

// sweepDue rescues lost runs and removes expired files when the probe saw any (one statement when
// nothing is due), and reports the earliest deadline it saw.
func (s *Service) sweepDue(ctx context.Context) (queue.Outcome, error) {
	var probe struct {
		Expired   bool       `db:"expired"`
		ExpiresAt *time.Time `db:"expires_at"`
		Lost      bool       `db:"run_lost"`
		LostAt    *time.Time `db:"run_at"`
	}
	if err := s.d.DB.GetContext(ctx, &probe, `SELECT
		EXISTS (SELECT 1 FROM exports WHERE status = 'SUCCEEDED' AND expires_at <= now()) AS expired,
		(SELECT min(expires_at) FROM exports WHERE status = 'SUCCEEDED' AND expires_at > now()) AS expires_at,
		`+heartbeat.Probe("run", "$1"), s.d.Silence.Seconds()); err != nil {
		return queue.Outcome{}, err
	}
	o := queue.Due(probe.ExpiresAt, probe.LostAt)
	if probe.Lost {
		n, err := s.rescue(ctx)
		if err != nil {
			return o, err
		}
		o.Found = n > 0
	}
	if probe.Expired {
		n, err := Expire(ctx, s.d.DB, s.d.Files)
		if err != nil {
			return o, err
		}
		o.Found = o.Found || n > 0
	}
	return o, nil
}

// Register adds the export workers.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, s.NewWorker())
	river.AddWorker(w, &sweepWorker{s: s})
}

// Sweep is the sweep, for the leader replica.
func (s *Service) Sweep() *queue.Sweep {
	return &queue.Sweep{Name: "exports_sweep", Every: sweepEvery, Idle: sweepIdle, Run: s.sweepDue}
}

// SetQueue gives the service the queue its jobs go to (built after the workers are registered).
func (s *Service) SetQueue(q *queue.Client) { s.d.Queue = q }
