package exports

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
	openapi_types "github.com/oapi-codegen/runtime/types"
)

// row is an exports row as the routes show it.
type row struct {
	ID         uuid.UUID       `db:"id"`
	Org        uuid.UUID       `db:"organization_id"`
	App        uuid.UUID       `db:"app_id"`
	Status     string          `db:"status"`
	Filename   string          `db:"filename"`
	Format     string          `db:"format"`
	Options    json.RawMessage `db:"options"`
	Email      *string         `db:"email"`
	Key        string          `db:"storage_key"`
	JobCount   *int64          `db:"job_count"`
	SizeBytes  *int64          `db:"size_bytes"`
	Error      *string         `db:"error"`
	CreatedBy  *string         `db:"created_by"`
	CreatorID  *uuid.UUID      `db:"created_by_user"`
	CreatedAt  time.Time       `db:"created_at"`
	StartedAt  *time.Time      `db:"started_at"`
	FinishedAt *time.Time      `db:"finished_at"`
	ExpiresAt  *time.Time      `db:"expires_at"`
}

const exportColumns = `e.id, e.organization_id, e.app_id, e.status, e.filename, e.format, e.options, e.email, e.storage_key,
	e.job_count, e.size_bytes, e.error, e.created_by, e.created_by_user, e.created_at, e.started_at, e.finished_at, e.expires_at`

func (r row) response() v1api.Export {
	out := v1api.Export{Id: r.ID, AppId: r.App, Status: v1api.ExportStatus(r.Status), Filename: r.Filename,
		Format: v1api.ExportFormat(r.Format), JobCount: r.JobCount, SizeBytes: r.SizeBytes, Error: r.Error,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(), StartedAt: utc(r.StartedAt), FinishedAt: utc(r.FinishedAt),
		ExpiresAt: utc(r.ExpiresAt)}
	if r.Email != nil {
		out.Email = (*openapi_types.Email)(r.Email)
	}
	var opts map[string]any
	if json.Unmarshal(r.Options, &opts) == nil {
		out.Options = &opts
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

var sortColumns = paging.Columns{"id": "e.id", "created_at": "e.created_at", "finished_at": "e.finished_at"}

// ListExports pages through the app's exports.
func (s *Service) ListExports(ctx context.Context, req v1api.ListExportsRequestObject) (v1api.ListExportsResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager); err != nil {
		return nil, err
	}
	p := req.Params
	pg := paging.New(p.Page, p.Size, (*string)(p.SortBy), (*string)(p.OrderBy), sortColumns)
	rows, total, err := paging.List[row](ctx, s.d.DB, pg, exportColumns, `exports e`, `e.app_id = $1`, []any{req.AppId})
	if err != nil {
		return nil, err
	}
	out := v1api.ListExports200JSONResponse{Items: make([]v1api.Export, 0, len(rows)), Total: total, Page: pg.Page, Size: pg.Size}
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// GetExport answers one export of the app.
func (s *Service) GetExport(ctx context.Context, req v1api.GetExportRequestObject) (v1api.GetExportResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager); err != nil {
		return nil, err
	}
	var r row
	err := s.d.DB.GetContext(ctx, &r, `SELECT `+exportColumns+` FROM exports e WHERE e.app_id = $1 AND e.id = $2`, req.AppId, req.ExportId)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, httpx.NotFound("export")
	}
	if err != nil {
		return nil, err
	}
	return v1api.GetExport200JSONResponse(r.response()), nil
}

// GetJobResponsesLink answers a 15-minute link to a finished file. An unknown, unfinished or expired
// file, and another organization's, are the same 404; a file of an app the caller cannot see is too.
func (s *Service) GetJobResponsesLink(ctx context.Context, req v1api.GetJobResponsesLinkRequestObject) (v1api.GetJobResponsesLinkResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var r row
	err := s.d.DB.GetContext(ctx, &r, `SELECT `+exportColumns+` FROM exports e
		WHERE e.organization_id = $1 AND e.filename = $2 AND e.status = 'SUCCEEDED' AND e.expires_at > now()`,
		p.OrganizationID, req.Filename)
	notFound := httpx.NotFound("file")
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	g, err := s.d.Grants.Resolve(ctx, p, r.App)
	if err != nil {
		var he *httpx.Error
		if errors.As(err, &he) && he.Status == 404 {
			return nil, notFound
		}
		return nil, err
	}
	creator := r.CreatorID != nil && *r.CreatorID == p.UserID && p.Credential != auth.CredentialAPIKey
	if !creator {
		if err := g.Require(access.Manager); err != nil {
			return nil, err
		}
	}
	expires := time.Now().Add(LinkTTL)
	url, err := s.d.Files.URL(ctx, r.Key, LinkTTL, r.Filename)
	if err != nil {
		return nil, err
	}
	ct := contentType(r.Format)
	return v1api.GetJobResponsesLink200JSONResponse{Filename: r.Filename, Url: url, ExpiresAt: expires.UTC(),
		SizeBytes: r.SizeBytes, ContentType: &ct}, nil
}

func contentType(format string) string {
	if format == "csv" {
		return "text/csv"
	}
	return "application/jsonl"
}
