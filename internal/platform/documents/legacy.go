package documents

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Earlier versions kept an organization's document tables in a schema of loopwork's own database
// (document_schemas), read by a role that logged in there. Migration 92 took LOGIN from those roles;
// what is left is done here, once per organization and before anything else touches its documents: each
// current table is copied to the organization's own database, then the schema, the role and the row go.

// hasLegacy tells whether the organization still has a schema in loopwork's database. Once none is left
// anywhere, the answer is no without asking.
func (s *Service) hasLegacy(ctx context.Context, org uuid.UUID) bool {
	if s.legacyDone.Load() {
		return false
	}
	var left struct {
		Org bool `db:"org"`
		Any bool `db:"any"`
	}
	err := s.d.DB.GetContext(ctx, &left, `SELECT EXISTS (SELECT FROM document_schemas WHERE organization_id = $1) AS org,
		EXISTS (SELECT FROM document_schemas) AS any`, org)
	if err == nil && !left.Any {
		s.legacyDone.Store(true)
	}
	return err != nil || left.Org
}

type legacyTable struct {
	Name    string         `db:"current_table_name"`
	Columns pq.StringArray `db:"columns"`
}

// moveLegacy moves the organization's tables out of its old schema; the caller holds its lock.
func (s *Service) moveLegacy(ctx context.Context, t tenantDB) error {
	var old struct {
		Schema string `db:"schema_name"`
		Role   string `db:"role_name"`
	}
	err := s.d.DB.GetContext(ctx, &old, `SELECT schema_name, role_name FROM document_schemas WHERE organization_id = $1`, t.Org)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var tables []legacyTable
	if err := s.d.DB.SelectContext(ctx, &tables, `SELECT d.current_table_name, r.columns FROM documents d
		JOIN document_revisions r ON r.id = d.current_revision
		WHERE d.organization_id = $1 AND d.database_type = 'csv' AND d.current_table_name IS NOT NULL
		AND to_regclass(quote_ident($2) || '.' || quote_ident(d.current_table_name)) IS NOT NULL`, t.Org, old.Schema); err != nil {
		return err
	}
	if len(tables) > 0 {
		src, err := pgxConnect(ctx, s.d.DatabaseURL)
		if err != nil {
			return err
		}
		defer src.Close(context.Background())
		dst, err := s.connectOwner(ctx, t)
		if err != nil {
			return err
		}
		defer dst.Close(context.Background())
		for _, tb := range tables {
			if err := copyTable(ctx, src, dst, old.Schema, tb); err != nil {
				return err
			}
		}
	}
	schema, role := pq.QuoteIdentifier(old.Schema), pq.QuoteIdentifier(old.Role)
	if _, err := s.d.DB.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`); err != nil {
		return err
	}
	if _, err := s.d.DB.ExecContext(ctx, `DROP ROLE IF EXISTS `+role); err != nil {
		// The role can log in no more (migration 92); what else holds on to it is the operator's to see.
		s.d.Logger.Warn("an earlier version's document role was not dropped", "role", old.Role, "error", err)
	}
	_, err = s.d.DB.ExecContext(ctx, `DELETE FROM document_schemas WHERE organization_id = $1`, t.Org)
	return err
}

// copyTable streams one table from the old schema into the organization's database, replacing a table
// of that name a move interrupted earlier may have left.
func copyTable(ctx context.Context, src, dst *pgx.Conn, schema string, tb legacyTable) error {
	tx, err := dst.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	name := pq.QuoteIdentifier(tb.Name)
	defs := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		defs[i] = pq.QuoteIdentifier(c) + " text NOT NULL"
	}
	if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+name); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE `+name+` (`+strings.Join(defs, ", ")+`)`); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	read := make(chan error, 1)
	go func() {
		_, err := src.PgConn().CopyTo(ctx, pw, `COPY `+pq.QuoteIdentifier(schema)+`.`+name+` TO STDOUT`)
		pw.CloseWithError(err)
		read <- err
	}()
	_, err = tx.Conn().PgConn().CopyFrom(ctx, pr, `COPY `+name+` FROM STDIN WITH (FREEZE)`)
	pr.CloseWithError(io.ErrClosedPipe)
	if rerr := <-read; rerr != nil && !errors.Is(rerr, io.ErrClosedPipe) {
		return rerr
	}
	if err != nil {
		return err
	}
	return tx.Commit(ctx)
}

type legacyArgs struct{}

func (legacyArgs) Kind() string { return "document_legacy_move" }

// InsertOpts keeps one move at a time in the queue.
func (legacyArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: time.Hour}}
}

type legacyWorker struct {
	river.WorkerDefaults[legacyArgs]
	s *Service
}

func (w *legacyWorker) Timeout(*river.Job[legacyArgs]) time.Duration { return time.Hour }

// Work moves every organization still in an old schema, so that their old roles go even if nobody
// touches their documents; when none is left, the question is not asked again.
func (w *legacyWorker) Work(ctx context.Context, _ *river.Job[legacyArgs]) error {
	return MoveLegacy(ctx, w.s)
}

// MoveLegacy moves every organization still in an old schema now.
func MoveLegacy(ctx context.Context, s *Service) error {
	var orgs []uuid.UUID
	if err := s.d.DB.SelectContext(ctx, &orgs, `SELECT organization_id FROM document_schemas`); err != nil {
		return err
	}
	for _, org := range orgs {
		if _, err := s.ensureDatabase(ctx, org); err != nil {
			return err
		}
	}
	if len(orgs) == 0 {
		s.legacyDone.Store(true)
	}
	return nil
}
