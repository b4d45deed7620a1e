package documents

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
)

const sweepEvery = time.Minute

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
