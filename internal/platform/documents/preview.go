package documents

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/csvsniff"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// PreviewDocumentUpload counts the records of a sent file as it arrives (or of a staged upload) and
// parses only its first rows, so a preview takes about as long as the file takes to arrive.
func (s *Service) PreviewDocumentUpload(ctx context.Context, req platformapi.PreviewDocumentUploadRequestObject) (platformapi.PreviewDocumentUploadResponseObject, error) {
	p := auth.MustFromContext(ctx)
	d, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	var scan *csvsniff.Scan
	var uploadID, delimiter, hasHeader string
	for {
		part, err := req.Body.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, tooLargeOr(err, httpx.Invalid([]any{"body"}, "value_error", "the multipart body cannot be read: "+err.Error()))
		}
		switch part.FormName() {
		case "file":
			if scan != nil {
				return nil, httpx.Invalid([]any{"body", "file"}, "value_error", "send one file, not several")
			}
			lr := &limited{r: part, left: MaxBytes}
			if scan, err = csvsniff.ScanAll(lr, csvsniff.PreviewRows+1, csvsniff.HeadLimit); err != nil {
				return nil, tooLargeOr(err, err)
			}
		case "upload_id":
			uploadID, err = field(part, "upload_id")
		case "delimiter":
			delimiter, err = field(part, "delimiter")
		case "has_header":
			hasHeader, err = field(part, "has_header")
		}
		if err != nil {
			return nil, err
		}
	}
	if (scan == nil) == (uploadID == "") {
		return nil, httpx.Invalid([]any{"body"}, "value_error", "send exactly one of file and upload_id")
	}
	delim, err := parseDelimiter(delimiter, []any{"body", "delimiter"})
	if err != nil {
		return nil, err
	}
	header := true
	if hasHeader != "" {
		if header, err = strconv.ParseBool(hasHeader); err != nil {
			return nil, httpx.Invalid([]any{"body", "has_header"}, "bool_parsing", "has_header is true or false")
		}
	}
	if scan == nil {
		if scan, err = s.scanUpload(ctx, d, uploadID); err != nil {
			return nil, err
		}
	}
	// What an upload of the file would refuse, the preview refuses alike (422), before parsing it.
	if err := scan.Text(); err != nil {
		return nil, httpx.Invalid([]any{"body", "file"}, "value_error", err.Error())
	}
	pv, err := csvsniff.MakePreview(scan, delim, header)
	if err != nil {
		return nil, httpx.Invalid([]any{"body", "file"}, "value_error", "the file cannot be parsed: "+err.Error())
	}
	return platformapi.PreviewDocumentUpload200JSONResponse{Headers: pv.Headers, PreviewRows: pv.Rows,
		Metadata: platformapi.CSVMetadata{TotalRows: int(pv.TotalRows), TotalColumns: pv.Columns, FileSize: int(pv.Size),
			FileSizeMb: pv.SizeMB(), HasHeader: pv.HasHeader, Delimiter: string(pv.Delimiter)}}, nil
}

// scanUpload scans a staged upload of the document; an unknown, completed or expired one is a 404.
func (s *Service) scanUpload(ctx context.Context, d row, uploadID string) (*csvsniff.Scan, error) {
	id, err := uuid.Parse(uploadID)
	if err != nil {
		return nil, httpx.NotFound("upload")
	}
	var key string
	err = s.d.DB.GetContext(ctx, &key, `SELECT file_key FROM document_uploads WHERE id = $1 AND document_id = $2
		AND completed_at IS NULL AND expires_at > now()`, id, d.ID)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, httpx.NotFound("upload")
	}
	if err != nil {
		return nil, err
	}
	f, _, err := s.d.Files.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csvsniff.ScanAll(f, csvsniff.PreviewRows+1, csvsniff.HeadLimit)
}

// field reads a short form field.
func field(part io.Reader, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(part, 201))
	if err != nil {
		return "", tooLargeOr(err, err)
	}
	if len(b) > 200 {
		return "", httpx.Invalid([]any{"body", name}, "value_error", name+" is too long")
	}
	return string(b), nil
}

// parseDelimiter checks a given delimiter: one character that can separate fields; 0 when none is given.
func parseDelimiter(d string, loc []any) (byte, error) {
	if d == "" {
		return 0, nil
	}
	if len(d) != 1 || d[0] == '"' || d[0] == '\r' || d[0] == '\n' || d[0] >= 0x80 {
		return 0, httpx.Invalid(loc, "value_error", "the delimiter is one ASCII character other than a quote or a line end, such as , ; | or a tab")
	}
	return d[0], nil
}
