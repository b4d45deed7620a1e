package documents

import (
	"context"
	"database/sql"

	"github.com/riverqueue/river"
)

// deleteFilesArgs removes stored files whose rows are gone. The job is queued in the transaction that
// removes the rows, so the files go exactly when the rows do, even if the process dies right after.
type deleteFilesArgs struct {
	Keys []string `json:"keys"`
}

func (deleteFilesArgs) Kind() string { return "document_files_delete" }

type deleteFilesWorker struct {
	river.WorkerDefaults[deleteFilesArgs]
	s *Service
}

// Work deletes each file; deleting one that is already gone is not an error, so a retry is harmless.
func (w *deleteFilesWorker) Work(ctx context.Context, job *river.Job[deleteFilesArgs]) error {
	for _, k := range job.Args.Keys {
		if err := w.s.d.Files.Delete(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// forget deletes files whose rows tx removes: through a job queued in tx, or, for a service without a
// queue (the sweep tested alone), once tx has committed (after).
func (s *Service) forget(ctx context.Context, tx *sql.Tx, keys []string) (after func(), err error) {
	if len(keys) == 0 {
		return func() {}, nil
	}
	if s.d.Queue != nil {
		_, err := s.d.Queue.InsertTx(ctx, tx, deleteFilesArgs{Keys: keys}, nil)
		return func() {}, err
	}
	return func() {
		for _, k := range keys {
			if err := s.d.Files.Delete(ctx, k); err != nil {
				s.d.Logger.Warn("a file stays", "key", k, "error", err)
			}
		}
	}, nil
}
