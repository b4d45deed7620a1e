package documents

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/csvsniff"
	"github.com/loopwork/loopwork/internal/dbx"
)

// importRevision streams the revision's file into a new table of the organization's database with
// COPY, then makes it current: the file is parsed and checked here, record by record, while PostgreSQL
// stores the records already sent, so memory stays bounded by a few buffers whatever the file's size.
// The new table is staged under a name of its own until swap renames it; until then the previous
// revision's table is untouched and readable, and a failure leaves at most a staged table that the
// next attempt replaces.
func (s *Service) importRevision(ctx context.Context, r revision) error {
	t, err := s.ensureDatabase(ctx, r.Org)
	if err != nil {
		return err
	}
	var current string
	if err := s.d.DB.GetContext(ctx, &current, `SELECT coalesce(current_table_name, '') FROM documents WHERE id = $1`, r.Document); err != nil {
		return dbx.Translate(err)
	}
	f, info, err := s.d.Files.Open(ctx, r.FileKey)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := s.withinQuota(ctx, t, current, info.Size); err != nil {
		return err
	}
	rd := csvsniff.NewReader(f, r.Delimiter[0])
	first, err := rd.Read()
	if errors.Is(err, io.EOF) {
		return &csvsniff.Error{Line: 1, Msg: "the file has no rows"}
	}
	if err != nil {
		return err
	}
	cols, err := columnsOf(first, r.HasHeader)
	if err != nil {
		return err
	}
	conn, err := s.connectOwner(ctx, t)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	tag, err := stage(ctx, conn, r, rd, first, cols, func(ctx context.Context, tx pgx.Tx) error {
		var n int64
		if err := tx.QueryRow(ctx, usedSQL, current).Scan(&n); err != nil {
			return err
		}
		return s.quota(n)
	})
	if err != nil {
		return err
	}
	return s.swap(ctx, conn, r, cols, tag)
}

// stage writes the file into the revision's staging table and commits it, if check, run after the
// COPY, agrees.
func stage(ctx context.Context, conn *pgx.Conn, r revision, rd *csvsniff.Reader, first, cols []string,
	check func(context.Context, pgx.Tx) error) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	tx, err := conn.Begin(ctx)
	if err != nil {
		return tag, err
	}
	defer tx.Rollback(context.Background())
	tmp := pq.QuoteIdentifier(importTable(r.ID))
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = pq.QuoteIdentifier(c) + " text NOT NULL"
	}
	if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+tmp); err != nil {
		return tag, err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE `+tmp+` (`+strings.Join(defs, ", ")+`)`); err != nil {
		return tag, err
	}
	pr, pw := io.Pipe()
	parsed := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(pw, 256<<10)
		err := feed(w, rd, first, r.HasHeader)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
		parsed <- err
	}()
	// FREEZE: the table is new in this transaction, so its rows can be written frozen, sparing the
	// later vacuum a pass over them.
	tag, err = tx.Conn().PgConn().CopyFrom(ctx, pr, `COPY `+tmp+` FROM STDIN WITH (FORMAT text, FREEZE)`)
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the parser when COPY stopped early
	if parseErr := <-parsed; parseErr != nil && !errors.Is(parseErr, io.ErrClosedPipe) {
		return tag, parseErr
	}
	if err != nil {
		return tag, err
	}
	if err := check(ctx, tx); err != nil {
		return tag, err
	}
	return tag, tx.Commit(ctx)
}

// swap makes the staged table the document's current one, if the document still waits for it. The
// document's row stays locked in loopwork's database while the organization's database renames the
// table, and an organization's swaps take turns, so two documents cannot both claim one table name.
// Should loopwork's commit fail after the rename, the revision is still processing and its retry
// stages and swaps again (the tables are dropped IF EXISTS for that).
func (s *Service) swap(ctx context.Context, conn *pgx.Conn, r revision, cols []string, tag pgconn.CommandTag) error {
	tmp := pq.QuoteIdentifier(importTable(r.ID))
	return dbx.WithTx(ctx, s.d.DB, func(ltx *sqlx.Tx) error {
		if _, err := ltx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('document_swap:' || $1::text, 0))`, r.Org); err != nil {
			return err
		}
		var status string
		var current *string
		err := ltx.QueryRowContext(ctx, `SELECT status, current_table_name FROM documents WHERE id = $1 FOR UPDATE`,
			r.Document).Scan(&status, &current)
		if errors.Is(err, sql.ErrNoRows) || err == nil && status != "processing" {
			_, _ = conn.Exec(ctx, `DROP TABLE IF EXISTS `+tmp)
			return errGone
		}
		if err != nil {
			return err
		}
		var taken bool
		if err := ltx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT FROM documents WHERE organization_id = $1 AND id <> $2
			AND current_table_name = $3)`, r.Org, r.Document, r.Table); err != nil {
			return err
		}
		if taken {
			_, _ = conn.Exec(ctx, `DROP TABLE IF EXISTS `+tmp)
			return &csvsniff.Error{Line: 1, Msg: "the table " + r.Table + " exists already in this organization; choose another table_name"}
		}
		rows := tag.RowsAffected()
		if _, err := ltx.ExecContext(ctx, `UPDATE document_revisions SET status = 'ready', columns = $2, total_rows = $3,
			finished_at = now() WHERE id = $1`, r.ID, pq.StringArray(cols), rows); err != nil {
			return err
		}
		if _, err := ltx.ExecContext(ctx, `UPDATE documents SET status = 'ready', error = NULL, current_revision = $2,
			current_file_id = $3, current_table_name = $4, revision_count = revision_count + 1, total_rows = $5,
			updated_at = now() WHERE id = $1`, r.Document, r.ID, r.Upload, r.Table, rows); err != nil {
			return err
		}
		return renameStaged(ctx, conn, tmp, current, r.Table)
	})
}

// renameStaged replaces the document's previous table (and anything left under the new name by an
// earlier attempt) with the staged one, in one transaction of the organization's database.
func renameStaged(ctx context.Context, conn *pgx.Conn, tmp string, current *string, table string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if current != nil {
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+pq.QuoteIdentifier(*current)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+pq.QuoteIdentifier(table)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE `+tmp+` RENAME TO `+pq.QuoteIdentifier(table)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// feed writes the records in COPY's text format: fields separated by tabs, with backslash, tab and
// line ends escaped.
func feed(w *bufio.Writer, rd *csvsniff.Reader, first []string, hasHeader bool) error {
	rec := first
	if hasHeader {
		var err error
		if rec, err = rd.Read(); err != nil {
			return eofNil(err)
		}
	}
	for {
		for i, f := range rec {
			if i > 0 {
				w.WriteByte('\t')
			}
			if strings.ContainsAny(f, "\\\t\n\r") {
				escape(w, f)
			} else {
				w.WriteString(f)
			}
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		var err error
		if rec, err = rd.Read(); err != nil {
			return eofNil(err)
		}
	}
}

func escape(w *bufio.Writer, f string) {
	for i := 0; i < len(f); i++ {
		switch c := f[i]; c {
		case '\\':
			w.WriteString(`\\`)
		case '\t':
			w.WriteString(`\t`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		default:
			w.WriteByte(c)
		}
	}
}

func eofNil(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
