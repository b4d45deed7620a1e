package exports

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/mail"
)

// Args is the River job that writes one export's file.
type Args struct {
	ID uuid.UUID `json:"id"`
}

// Kind names the job in River's table.
func (Args) Kind() string { return "export_file" }

// InsertOpts: a failed attempt starts the file again from the beginning; after three the export is
// FAILED with the last error.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Worker writes export files.
type Worker struct {
	river.WorkerDefaults[Args]
	s *Service
}

// NewWorker returns the worker of the service's exports.
func (s *Service) NewWorker() *Worker { return &Worker{s: s} }

// Timeout leaves room for a million jobs and more; a worker that dies is noticed by Rescue instead.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return time.Hour }

type work struct {
	row
	Filter      json.RawMessage `db:"filter"`
	FileOptions json.RawMessage `db:"file_options"`
}

// Work writes the file. Only one run writes an export at a time (a session advisory lock, released if
// its process dies); every run starts the file over, and the object appears under its key only once
// whole, so the link can never serve a partial file.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	db := w.s.d.DB
	var e work
	err := db.GetContext(ctx, &e, `SELECT `+exportColumns+`, e.filter, e.file_options FROM exports e WHERE e.id = $1`, job.Args.ID)
	if err != nil {
		return dbx.Translate(err)
	}
	if e.Status != "QUEUED" && e.Status != "RUNNING" {
		return nil
	}
	conn, err := db.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mine bool
	if err := conn.GetContext(ctx, &mine, `SELECT pg_try_advisory_lock(hashtextextended('export:' || $1::text, 0))`, e.ID); err != nil {
		return err
	}
	if !mine {
		return nil // another run is writing it, and will finish or be rescued
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended('export:' || $1::text, 0))`, e.ID)
	n, size, err := w.write(ctx, e)
	if err != nil {
		if job.Attempt < job.MaxAttempts {
			return err
		}
		res, ferr := db.ExecContext(ctx, `UPDATE exports SET status = 'FAILED', error = $2, finished_at = now(), beat_at = NULL
			WHERE id = $1 AND status IN ('QUEUED', 'RUNNING')`, e.ID, truncate(err.Error(), 1000))
		if ferr == nil && affected(res) {
			w.s.observe("failed")
		}
		return ferr
	}
	return w.finish(ctx, e.row, n, size)
}

// affected reports whether a statement changed a row (and not when it cannot tell).
func affected(res sql.Result) bool {
	n, err := res.RowsAffected()
	return err == nil && n > 0
}

func (w *Worker) write(ctx context.Context, e work) (n, size int64, err error) {
	sel := selection{App: e.App, Org: e.Org}
	if err := json.Unmarshal(e.Filter, &sel.Filter); err != nil {
		return 0, 0, fmt.Errorf("export filter: %w", err)
	}
	if err := json.Unmarshal(e.FileOptions, &sel.Options); err != nil {
		return 0, 0, fmt.Errorf("export options: %w", err)
	}
	db := w.s.d.DB
	if _, err := db.ExecContext(ctx, `UPDATE exports SET status = 'RUNNING', started_at = coalesce(started_at, now()),
		attempts = attempts + 1, beat_at = now(), job_count = 0 WHERE id = $1`, e.ID); err != nil {
		return 0, 0, err
	}
	last := time.Now()
	progress := func(done int64) {
		// Progress and a heartbeat, at most once a second; a failure here only delays the next.
		if time.Since(last) >= time.Second {
			last = time.Now()
			_, _ = db.ExecContext(ctx, `UPDATE exports SET beat_at = now(), job_count = $2 WHERE id = $1`, e.ID, done)
		}
	}
	conn, err := connectReader(ctx, w.s.d.DatabaseURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	pr, pw := io.Pipe()
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := sel.write(ctx, conn, pw, progress)
		pw.CloseWithError(err)
		done <- result{n, err}
	}()
	info, err := w.s.d.Files.Put(ctx, e.Key, pr, contentType(e.Format))
	pr.CloseWithError(err) // stops the writer when the store gave up first
	res := <-done
	if err == nil {
		err = res.err
	}
	if err != nil {
		return res.n, 0, err
	}
	return res.n, info.Size, nil
}

// finish marks the export SUCCEEDED and, when asked for, mails its link, in one transaction.
func (w *Worker) finish(ctx context.Context, e row, n, size int64) error {
	succeeded := false
	err := dbx.WithTx(ctx, w.s.d.DB, func(tx *sqlx.Tx) error {
		var expires time.Time
		err := tx.GetContext(ctx, &expires, `UPDATE exports SET status = 'SUCCEEDED', job_count = $2, size_bytes = $3,
			finished_at = now(), expires_at = now() + make_interval(secs => $4), beat_at = NULL
			WHERE id = $1 AND status = 'RUNNING' RETURNING expires_at`, e.ID, n, size, Keep.Seconds())
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return nil // no longer running: deleted with its app, or finished by another run
		}
		succeeded = err == nil
		if err != nil || e.Email == nil {
			return err
		}
		url, err := w.s.d.Files.URL(ctx, e.Key, time.Until(expires), e.Filename)
		if err != nil {
			return err
		}
		org := e.Org
		_, err = mail.Enqueue(ctx, tx, w.s.d.Queue, mail.Message{OrganizationID: &org, To: *e.Email,
			Subject: "Your export " + e.Filename + " is ready",
			Text: fmt.Sprintf("The export %s (%d jobs) is ready. Download it until %s:\n\n%s\n", e.Filename, n,
				expires.UTC().Format("2006-01-02 15:04 UTC"), url)})
		return err
	})
	if err == nil && succeeded {
		w.s.observe("succeeded")
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
