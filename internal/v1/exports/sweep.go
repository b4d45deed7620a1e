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
func Rescue(ctx context.Context, db *sqlx.DB, silence time.Duration, insert func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error) error {
	return queue.RescueLost(ctx, db, queue.Heartbeat{Table: "exports", Kind: Args{}.Kind()}, silence, insert)
}

// Expire removes the files of exports past expires_at and marks them EXPIRED.
func Expire(ctx context.Context, db *sqlx.DB, files blob.Store) error {
	var due []struct {
		ID  uuid.UUID `db:"id"`
		Key string    `db:"storage_key"`
	}
	if err := db.SelectContext(ctx, &due, `SELECT id, storage_key FROM exports
		WHERE status = 'SUCCEEDED' AND expires_at <= now() ORDER BY expires_at LIMIT 100`); err != nil {
		return err
	}
	for _, d := range due {
		// The row goes EXPIRED first: the link route stops handing out links before the file goes.
		if _, err := db.ExecContext(ctx, `UPDATE exports SET status = 'EXPIRED' WHERE id = $1 AND status = 'SUCCEEDED'`, d.ID); err != nil {
			return err
		}
		if err := files.Delete(ctx, d.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return err
		}
	}
	return nil
}

// sweepEvery is how often lost runs are rescued and expired files removed.
const sweepEvery = 5 * time.Second

type sweepArgs struct{}

func (sweepArgs) Kind() string { return "exports_sweep" }

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	s *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	if err := Rescue(ctx, w.s.d.DB, w.s.d.Silence, func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error {
		_, err := w.s.d.Queue.InsertTx(ctx, tx, Args{ID: id}, nil)
		return err
	}); err != nil {
		return err
	}
	return Expire(ctx, w.s.d.DB, w.s.d.Files)
}

// Register adds the export workers.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, s.NewWorker())
	river.AddWorker(w, &sweepWorker{s: s})
}

// PeriodicJobs are the sweep, for the queue's configuration.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(sweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return sweepArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})}
}

// SetQueue gives the service the queue its jobs go to (built after the workers are registered).
func (s *Service) SetQueue(q *queue.Client) { s.d.Queue = q }
