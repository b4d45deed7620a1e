package documents

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CompleteDocumentUpload records the import of a staged upload as a revision in processing and queues
// its import in the same transaction, so an accepted import always runs.
func (s *Service) CompleteDocumentUpload(ctx context.Context, req platformapi.CompleteDocumentUploadRequestObject) (platformapi.CompleteDocumentUploadResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	b := req.Body
	delim := byte(',')
	if b.Delimiter != nil {
		d, err := parseDelimiter(*b.Delimiter, []any{"body", "delimiter"})
		if err != nil {
			return nil, err
		}
		delim = d
	}
	header := b.HasHeader == nil || *b.HasHeader
	uploadID, uerr := uuid.Parse(b.UploadId)
	var out row
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		d, err := get(ctx, tx, p.OrganizationID, req.DbId, true)
		if err != nil {
			return err
		}
		if d.Status == "processing" {
			return httpx.NewError(http.StatusConflict, "conflict", "another import of this document is still processing")
		}
		if uerr != nil {
			return httpx.NotFound("upload")
		}
		var up struct {
			Completed *time.Time `db:"completed_at"`
			Expired   bool       `db:"expired"`
			Size      int64      `db:"file_size"`
		}
		err = tx.GetContext(ctx, &up, `SELECT completed_at, expires_at <= now() AS expired, file_size FROM document_uploads
			WHERE id = $1 AND document_id = $2`, uploadID, d.ID)
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) || err == nil && up.Expired && up.Completed == nil {
			return httpx.NotFound("upload")
		}
		if err != nil {
			return err
		}
		if up.Completed != nil {
			return httpx.NewError(http.StatusConflict, "conflict", "this upload was completed already")
		}
		replaced := ""
		if d.CurrentTableName != nil {
			replaced = *d.CurrentTableName
		}
		var qe *quotaError
		if err := s.quotaBefore(ctx, p.OrganizationID, replaced, up.Size); errors.As(err, &qe) {
			return httpx.NewError(http.StatusRequestEntityTooLarge, "quota_exceeded", "%s", qe.Error())
		} else if err != nil {
			return err
		}
		table := tableFor(d.Name)
		if b.TableName != nil {
			table = *b.TableName
		}
		var taken bool
		if err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT FROM documents WHERE organization_id = $1 AND id <> $2
			AND current_table_name = $3)`, p.OrganizationID, d.ID, table); err != nil {
			return err
		}
		if taken {
			return httpx.NewError(http.StatusConflict, "conflict", "the table %q holds another document of this organization; choose another table_name", table)
		}
		rev := uuid.New()
		if _, err := tx.ExecContext(ctx, `INSERT INTO document_revisions (id, organization_id, document_id, upload_id, status,
			table_name, delimiter, has_header) VALUES ($1, $2, $3, $4, 'processing', $5, $6, $7)`,
			rev, p.OrganizationID, d.ID, uploadID, table, string(delim), header); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE document_uploads SET completed_at = now() WHERE id = $1`, uploadID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &out, `UPDATE documents SET status = 'processing', status_before = NULL, error = NULL, updated_at = now(),
			modified_by = $2 WHERE id = $1 RETURNING `+columns, d.ID, p.Actor()); err != nil {
			return err
		}
		_, err = s.d.Queue.InsertTx(ctx, tx.Tx, importArgs{Revision: rev}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.CompleteDocumentUpload202JSONResponse(out.response()), nil
}

var nonAlnum = regexp.MustCompile(`[^a-z0-9]+`)

// tableFor derives a table name from a document name: lower case, non-alphanumerics as _, not
// starting with a digit, at most 63 characters.
func tableFor(name string) string {
	t := strings.Trim(nonAlnum.ReplaceAllString(strings.ToLower(name), "_"), "_")
	if t == "" {
		t = "document"
	}
	if t[0] >= '0' && t[0] <= '9' {
		t = "t_" + t
	}
	if len(t) > 63 {
		t = strings.TrimRight(t[:63], "_")
	}
	return t
}
