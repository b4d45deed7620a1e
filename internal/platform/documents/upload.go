package documents

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/csvsniff"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

var errTooLarge = httpx.NewError(http.StatusRequestEntityTooLarge, "request_too_large", "the file is larger than 100 MB (104857600 bytes)")

// fileKey is where an upload's file is stored; it stays there as the file of the revision it becomes.
func fileKey(org, doc, upload uuid.UUID) string {
	return "org/" + org.String() + "/documents/" + doc.String() + "/" + upload.String() + ".csv"
}

// StartDocumentUpload stores the file part as it arrives (never wholly in memory), checks that it
// begins like text, and stages it for 24 hours.
func (s *Service) StartDocumentUpload(ctx context.Context, req platformapi.StartDocumentUploadRequestObject) (platformapi.StartDocumentUploadResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	d, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	if err := uploadable(d); err != nil {
		return nil, err
	}
	id := uuid.New()
	key := fileKey(p.OrganizationID, d.ID, id)
	var name string
	var size int64
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.d.Files.Delete(ctx, key)
			return nil, tooLargeOr(err, httpx.Invalid([]any{"body"}, "value_error", "the multipart body cannot be read: "+err.Error()))
		}
		if part.FormName() != "file" {
			continue
		}
		if name != "" {
			s.d.Files.Delete(ctx, key)
			return nil, httpx.Invalid([]any{"body", "file"}, "value_error", "send one file, not several")
		}
		name = fileName(part)
		if size, err = s.stage(ctx, key, part); err != nil {
			return nil, err
		}
	}
	if name == "" {
		return nil, httpx.Invalid([]any{"body", "file"}, "missing", "file is required")
	}
	expires := time.Now().Add(UploadTTL)
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		d, err := get(ctx, tx, p.OrganizationID, req.DbId, true)
		if err != nil {
			return err
		}
		if err := uploadable(d); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO document_uploads (id, organization_id, document_id, file_key, file_name,
			file_size, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, id, p.OrganizationID, d.ID, key, name, size, expires); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE documents SET status = 'uploading', updated_at = now(), modified_by = $2,
			status_before = CASE WHEN status = 'uploading' THEN status_before ELSE status END WHERE id = $1`, d.ID, p.Actor())
		return err
	})
	if err != nil {
		s.d.Files.Delete(ctx, key)
		return nil, err
	}
	return platformapi.StartDocumentUpload201JSONResponse{UploadId: id.String(), DatabaseId: d.ID, FileName: name,
		FileSize: int(size), MaxBytes: MaxBytes, ExpiresAt: expires.UTC()}, nil
}

// uploadable answers 409 for documents that take no upload now.
func uploadable(d row) error {
	if d.DatabaseType != "csv" {
		return httpx.NewError(http.StatusConflict, "not_csv", "this is a sql document: its data is read from its database, not uploaded")
	}
	if d.Status == "processing" {
		return httpx.NewError(http.StatusConflict, "not_csv", "an import of this document is still processing; upload when it has ended")
	}
	return nil
}

// stage checks the beginning of the file, then stores all of it, refusing it past MaxBytes.
func (s *Service) stage(ctx context.Context, key string, part *multipart.Part) (int64, error) {
	br := bufio.NewReaderSize(part, 64<<10)
	head, err := br.Peek(peekSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return 0, tooLargeOr(err, err)
	}
	if err := looksLikeText(head); err != nil {
		return 0, err
	}
	lr := &limited{r: br, left: MaxBytes}
	info, err := s.d.Files.Put(ctx, key, lr, "text/csv")
	if lr.over {
		return 0, errTooLarge
	}
	if err != nil {
		return 0, tooLargeOr(err, err)
	}
	return info.Size, nil
}

// looksLikeText refuses files whose beginning is not UTF-8 text with at least one line, as the
// preview does (csvsniff.CheckText).
func looksLikeText(head []byte) error {
	if err := csvsniff.CheckText(head, len(head) == peekSize); err != nil {
		return httpx.Invalid([]any{"body", "file"}, "value_error", err.Error())
	}
	return nil
}

const peekSize = csvsniff.StartSize

func fileName(part *multipart.Part) string {
	n := path.Base(part.FileName())
	if n == "" || n == "." || n == "/" {
		return "upload.csv"
	}
	return n
}

// limited fails a read that goes past left bytes, so the store never keeps a file that is too large.
type limited struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		l.over = true
		return 0, errTooLarge
	}
	return n, err
}

// tooLargeOr passes on the body limit's 413 when that is what stopped the read.
func tooLargeOr(err error, otherwise error) error {
	var e *httpx.Error
	if errors.As(err, &e) && e.Status == http.StatusRequestEntityTooLarge {
		return e
	}
	return otherwise
}
