package documents

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/csvsniff"
)

// importRevision streams the revision's file into a new table with COPY, in one transaction with the
// swap that makes it current: the file is parsed and checked here, record by record, while PostgreSQL
// stores the records already sent, so memory stays bounded by a few buffers whatever the file's size.
// Until the commit the previous revision's table is untouched and readable; a failure leaves nothing.
func (s *Service) importRevision(ctx context.Context, r revision) error {
	if _, err := s.ensureSchema(ctx, r.Org); err != nil {
		return err
	}
	f, _, err := s.d.Files.Open(ctx, r.FileKey)
	if err != nil {
		return err
	}
	defer f.Close()
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
	cfg, err := pgx.ParseConfig(s.d.DatabaseURL)
	if err != nil {
		return err
	}
	delete(cfg.RuntimeParams, "binary_parameters") // lib/pq's own option, not a setting of the server
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	tmp := orgTable(r.Org, importTable(r.ID))
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = pq.QuoteIdentifier(c) + " text NOT NULL"
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE `+tmp+` (`+strings.Join(defs, ", ")+`)`); err != nil {
		return err
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
	tag, err := tx.Conn().PgConn().CopyFrom(ctx, pr, `COPY `+tmp+` FROM STDIN WITH (FORMAT text, FREEZE)`)
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the parser when COPY stopped early
	if parseErr := <-parsed; parseErr != nil && !errors.Is(parseErr, io.ErrClosedPipe) {
		return parseErr
	}
	if err != nil {
		return err
	}
	if err := swap(ctx, tx, r, cols, tag); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// swap makes the imported table the document's current one, if the document still waits for it.
func swap(ctx context.Context, tx pgx.Tx, r revision, cols []string, tag pgconn.CommandTag) error {
	var status string
	var current *string
	err := tx.QueryRow(ctx, `SELECT status, current_table_name FROM documents WHERE id = $1::uuid FOR UPDATE`,
		r.Document.String()).Scan(&status, &current)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && status != "processing" {
		return errGone
	}
	if err != nil {
		return err
	}
	if current != nil {
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+orgTable(r.Org, *current)); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `ALTER TABLE `+orgTable(r.Org, importTable(r.ID))+` RENAME TO `+pq.QuoteIdentifier(r.Table)); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P07" {
			return &csvsniff.Error{Line: 1, Msg: "the table " + r.Table + " exists already in this organization; choose another table_name"}
		}
		return err
	}
	rows := tag.RowsAffected()
	if _, err := tx.Exec(ctx, `UPDATE document_revisions SET status = 'ready', columns = $2, total_rows = $3,
		finished_at = now() WHERE id = $1::uuid`, r.ID.String(), cols, rows); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE documents SET status = 'ready', error = NULL, current_revision = $2::uuid,
		current_file_id = $3::uuid, current_table_name = $4, revision_count = revision_count + 1, total_rows = $5,
		updated_at = now() WHERE id = $1::uuid`, r.Document.String(), r.ID.String(), r.Upload.String(), r.Table, rows)
	return err
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
