package documents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/csvsniff"
	"github.com/loopwork/loopwork/internal/dbx"
)

type importArgs struct {
	Revision uuid.UUID `json:"revision"`
}

func (importArgs) Kind() string { return "document_import" }

// InsertOpts: a file that cannot be imported fails at once (its revision says why); only the
// database or the store failing is retried, a few times.
func (importArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

type importWorker struct {
	river.WorkerDefaults[importArgs]
	s *Service
}

func (w *importWorker) Timeout(*river.Job[importArgs]) time.Duration { return time.Hour }

// revision is what an import needs to know.
type revision struct {
	ID        uuid.UUID `db:"id"`
	Org       uuid.UUID `db:"organization_id"`
	Document  uuid.UUID `db:"document_id"`
	Upload    uuid.UUID `db:"upload_id"`
	FileKey   string    `db:"file_key"`
	Table     string    `db:"table_name"`
	Delimiter string    `db:"delimiter"`
	HasHeader bool      `db:"has_header"`
}

// Work imports one revision. A revision that is no longer processing (done by an earlier delivery,
// or its document deleted) is left alone.
func (w *importWorker) Work(ctx context.Context, job *river.Job[importArgs]) error {
	var r revision
	err := w.s.d.DB.GetContext(ctx, &r, `SELECT r.id, r.organization_id, r.document_id, r.upload_id, u.file_key,
		r.table_name, r.delimiter, r.has_header FROM document_revisions r JOIN document_uploads u ON u.id = r.upload_id
		WHERE r.id = $1 AND r.status = 'processing'`, job.Args.Revision)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	err = w.s.importRevision(ctx, r)
	var fe *csvsniff.Error
	var qe *quotaError
	switch {
	case err == nil || errors.Is(err, errGone):
		return nil
	case errors.As(err, &fe):
		return w.s.fail(ctx, r, "the file cannot be imported: "+fe.Error())
	case errors.As(err, &qe):
		return w.s.fail(ctx, r, "the file cannot be imported: "+qe.Error())
	case errors.Is(err, errPrivilege) || job.Attempt >= job.MaxAttempts:
		// The revision says what the organization can do about it; the log keeps the details.
		w.s.d.Logger.Error("document import failed", "revision", r.ID, "error", err)
		return w.s.fail(ctx, r, importFailure(err))
	}
	return err
}

// fail records a failed import: the revision says why, and the document is failed with the previous
// revision, if any, still current.
func (s *Service) fail(ctx context.Context, r revision, reason string) error {
	return dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE document_revisions SET status = 'failed', error = $2, finished_at = now()
			WHERE id = $1 AND status = 'processing'`, r.ID, reason)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE documents SET status = 'failed', error = $2, updated_at = now()
			WHERE id = $1 AND status = 'processing'`, r.Document, reason)
		return err
	})
}

var errGone = errors.New("the document was deleted or changed during the import")

// columnsOf names the table's columns from the first record, which is data too without a header.
func columnsOf(first []string, hasHeader bool) ([]string, error) {
	if hasHeader {
		return csvsniff.Columns(first), nil
	}
	if len(first) == 0 {
		return nil, &csvsniff.Error{Line: 1, Msg: "no columns"}
	}
	return csvsniff.Numbered(len(first)), nil
}

func importTable(id uuid.UUID) string { return fmt.Sprintf("__import_%x", id[:]) }
