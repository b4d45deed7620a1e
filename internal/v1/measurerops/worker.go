package measurerops

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

// Args is the River job that runs one measurer operation.
type Args struct {
	ID uuid.UUID `json:"id"`
}

// Kind names the job in River's table.
func (Args) Kind() string { return "measurer_operation" }

// InsertOpts: a run that fails is retried a few times; each step is idempotent.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 5} }

// waitStep is how long a MEASURE waits before it looks at its jobs again.
const waitStep = time.Second

// Worker runs operations step by step: a MEASURE submits its jobs, snoozes until they have all
// finished, then scores them; a CALIBRATE computes its thresholds at once.
type Worker struct {
	river.WorkerDefaults[Args]
	s *Service
}

// Register adds the worker.
func (s *Service) Register(w *river.Workers) {
	river.AddWorker(w, &Worker{s: s})
	river.AddWorker(w, &scheduleWorker{s: s})
}

func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	db := w.s.d.DB
	var op operation
	if err := db.GetContext(ctx, &op, `SELECT `+opColumns+` FROM measurer_operations WHERE id = $1`, job.Args.ID); err != nil {
		return dbx.Translate(err)
	}
	if op.Status != "QUEUED" && op.Status != "RUNNING" {
		return nil
	}
	if _, err := db.ExecContext(ctx, `UPDATE measurer_operations SET status = 'RUNNING', started_at = coalesce(started_at, now())
		WHERE id = $1`, op.ID); err != nil {
		return err
	}
	cfg, err := measurerconfig.Load(ctx, db, op.App)
	if err != nil {
		return err
	}
	var done bool
	switch op.Type {
	case "MEASURE":
		done, err = w.measure(ctx, op, cfg)
	default:
		err, done = w.calibrate(ctx, op, cfg), true
	}
	if err != nil {
		if job.Attempt < job.MaxAttempts {
			return err
		}
		return w.finish(ctx, op, fmt.Sprintf("%v", err))
	}
	if !done {
		return river.JobSnooze(waitStep)
	}
	return w.finish(ctx, op, "")
}

// finish ends the operation (FAILED with reason, or SUCCEEDED) and gives the configuration back its
// READY state, in one transaction.
func (w *Worker) finish(ctx context.Context, op operation, reason string) error {
	return dbx.WithTx(ctx, w.s.d.DB, func(tx *sqlx.Tx) error {
		status, errText := "SUCCEEDED", (*string)(nil)
		if reason != "" {
			status, errText = "FAILED", &reason
		}
		if _, err := tx.ExecContext(ctx, `UPDATE measurer_operations SET status = $2, error = $3, progress = CASE WHEN $2 = 'SUCCEEDED'
			THEN 1 ELSE progress END, finished_at = now() WHERE id = $1`, op.ID, status, errText); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE measurer_configurations SET state = 'READY', updated_at = now() WHERE app_id = $1`, op.App)
		return err
	})
}
