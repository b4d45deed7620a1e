package documents

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/queue"
)

// sweepEvery is how often expired uploads are looked for while some are found, and sweepIdle the
// longest between looks otherwise (see queue.Sweep). A look reads when the earliest staged upload
// expires and runs then; an upload staged after it expires UploadTTL later, so an hour between looks
// never lets one outstay its time by more than that hour, where a River job every minute cost an idle
// server four transactions a minute.
const (
	sweepEvery = time.Minute
	sweepIdle  = time.Hour
)

// sweepArgs is a job that sweeps once. The leader no longer enqueues it periodically (see Sweeps); the
// worker stays for jobs an older version left queued and for an operator's retry.
type sweepArgs struct{}

func (sweepArgs) Kind() string { return "document_upload_sweep" }

// InsertOpts keeps one sweep at a time in the queue.
func (sweepArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: sweepEvery}}
}

type sweepWorker struct {
	river.WorkerDefaults[sweepArgs]
	s *Service
}

// Work discards staged uploads past their expiry: their files, their rows, and the uploading state of
// documents left with no other staged upload, which return to the state they were in before.
func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[sweepArgs]) error {
	return Expire(ctx, w.s)
}

// sweepDue runs Expire when a staged upload has expired, and reports when the earliest other one will.
func (s *Service) sweepDue(ctx context.Context) (queue.Outcome, error) {
	var at *time.Time
	if err := s.d.DB.GetContext(ctx, &at, `SELECT min(expires_at) FROM document_uploads WHERE completed_at IS NULL`); err != nil {
		return queue.Outcome{}, err
	}
	if at == nil {
		return queue.Outcome{}, nil
	}
	if at.After(time.Now()) {
		return queue.Outcome{Next: *at}, nil
	}
	return queue.Outcome{Found: true}, Expire(ctx, s)
}

// Expire runs one sweep now.
func Expire(ctx context.Context, s *Service) error {
	var keys []string
	var after func()
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &keys, `DELETE FROM document_uploads u WHERE completed_at IS NULL AND expires_at <= now()
			AND NOT EXISTS (SELECT FROM document_revisions r WHERE r.upload_id = u.id) RETURNING file_key`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents d SET status = coalesce(status_before, 'empty'), status_before = NULL,
			updated_at = now() WHERE status = 'uploading' AND NOT EXISTS (SELECT FROM document_uploads u
			WHERE u.document_id = d.id AND u.completed_at IS NULL)`); err != nil {
			return err
		}
		var err error
		after, err = s.forget(ctx, tx.Tx, keys)
		return err
	})
	if err != nil {
		return err
	}
	after()
	return nil
}
