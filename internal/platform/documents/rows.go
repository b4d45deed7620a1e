package documents

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/lib/pq"
	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// current reads the columns of a csv document's current revision (none without one).
func (s *Service) current(ctx context.Context, d row) ([]string, error) {
	if d.CurrentRevision == nil {
		return []string{}, nil
	}
	var cols pq.StringArray
	err := s.d.DB.GetContext(ctx, &cols, `SELECT columns FROM document_revisions WHERE id = $1`, *d.CurrentRevision)
	return cols, err
}

// ListDocumentColumns names the columns of the current data in table order.
func (s *Service) ListDocumentColumns(ctx context.Context, req platformapi.ListDocumentColumnsRequestObject) (platformapi.ListDocumentColumnsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	d, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	var cols []string
	if d.DatabaseType == "sql" {
		cols, err = s.sqlColumns(ctx, d)
	} else {
		cols, err = s.current(ctx, d)
	}
	if err != nil {
		return nil, err
	}
	return platformapi.ListDocumentColumns200JSONResponse{DatabaseId: d.ID, Columns: cols, ColumnCount: len(cols)}, nil
}

// ListDocumentRows pages through the current data. A csv table is read in its physical order, which
// is the file's: it is written once by COPY and only ever read (the organization's role may not write
// it), and synchronized scans, which could start a read mid-table, are off for the read.
func (s *Service) ListDocumentRows(ctx context.Context, req platformapi.ListDocumentRowsRequestObject) (platformapi.ListDocumentRowsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	d, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	out := platformapi.ListDocumentRows200JSONResponse{DatabaseId: d.ID, Columns: []string{}, Rows: [][]interface{}{},
		Page: pg.Page, Limit: pg.Limit}
	if d.DatabaseType == "sql" {
		return s.sqlRows(ctx, d, pg, out)
	}
	if out.Columns, err = s.current(ctx, d); err != nil || len(out.Columns) == 0 {
		return out, err
	}
	out.Total = int(d.TotalRows)
	t, err := s.ensureDatabase(ctx, p.OrganizationID)
	if err != nil {
		return nil, err
	}
	db, err := s.owner(t)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	if _, err := tx.ExecContext(ctx, `SET LOCAL synchronize_seqscans = off`); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT * FROM `+pq.QuoteIdentifier(*d.CurrentTableName)+` LIMIT $1 OFFSET $2`,
		pg.Limit, pg.Offset())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]string, len(out.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make([]interface{}, len(vals))
		for i, v := range vals {
			r[i] = v
		}
		out.Rows = append(out.Rows, r)
	}
	return out, rows.Err()
}

// GetDocumentDownloadUrl links to the file of the current revision, as uploaded.
func (s *Service) GetDocumentDownloadUrl(ctx context.Context, req platformapi.GetDocumentDownloadUrlRequestObject) (platformapi.GetDocumentDownloadUrlResponseObject, error) {
	p := auth.MustFromContext(ctx)
	d, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	if d.CurrentFileID == nil {
		return nil, httpx.NewError(http.StatusConflict, "no_file", "this document has no current file (no import succeeded yet, or it is a sql document)")
	}
	var up struct {
		Key  string `db:"file_key"`
		Name string `db:"file_name"`
	}
	if err := s.d.DB.GetContext(ctx, &up, `SELECT file_key, file_name FROM document_uploads WHERE id = $1`, *d.CurrentFileID); err != nil {
		return nil, err
	}
	expires := time.Now().Add(LinkTTL).UTC()
	url, err := s.d.Files.URL(ctx, up.Key, LinkTTL, up.Name)
	if err != nil {
		return nil, err
	}
	return platformapi.GetDocumentDownloadUrl200JSONResponse{DownloadUrl: url, ExpiresAt: &expires}, nil
}
