package baseline

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

var sortColumns = paging.Columns{"id": "b.id", "type": "b.type", "created_at": "b.created_at", "updated_at": "b.updated_at"}

var errRecordNotFound = httpx.NotFound("baseline data record")

// ListBaselineData pages through the API's records, optionally of some types.
func (s *Service) ListBaselineData(ctx context.Context, req v1api.ListBaselineDataRequestObject) (v1api.ListBaselineDataResponseObject, error) {
	if _, err := RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Labeler); err != nil {
		return nil, err
	}
	p := req.Params
	pg := paging.New(p.Page, p.Size, (*string)(p.SortBy), (*string)(p.OrderBy), sortColumns)
	var types []string
	if p.Type != nil {
		for _, t := range *p.Type {
			types = append(types, string(t))
		}
	}
	rows, total, err := paging.List[row](ctx, s.d.DB, pg, columns, `baseline_data b`,
		`b.api_id = $1 AND (cardinality($2::text[]) = 0 OR b.type = ANY($2::text[]))`, []any{req.ApiId, textArray(types)})
	if err != nil {
		return nil, err
	}
	withLabel := p.IncludeLabel == nil || *p.IncludeLabel
	out := v1api.ListBaselineData200JSONResponse{Items: make([]v1api.BaselineData, len(rows)), Total: total, Page: pg.Page, Size: pg.Size}
	for i, r := range rows {
		out.Items[i] = r.response(withLabel)
	}
	return out, nil
}

// CreateBaselineData stores a record (type OWNER unless given).
func (s *Service) CreateBaselineData(ctx context.Context, req v1api.CreateBaselineDataRequestObject) (v1api.CreateBaselineDataResponseObject, error) {
	p, err := RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Manager)
	if err != nil {
		return nil, err
	}
	b := req.Body
	typ := "OWNER"
	if b.Type != nil {
		typ = string(*b.Type)
	}
	in, resp, err := encode(b.Input, b.Response)
	if err != nil {
		return nil, err
	}
	var r row
	err = s.d.DB.GetContext(ctx, &r, `INSERT INTO baseline_data AS b (organization_id, api_id, type, input, response, label,
		source_job_id, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+columns,
		p.OrganizationID, req.ApiId, typ, in, resp, b.Label, b.SourceJobId, actor(p))
	if err != nil {
		return nil, err
	}
	return v1api.CreateBaselineData200JSONResponse(r.response(true)), nil
}

// CreateBaselineDataFromJob copies a COMPLETED job of one of the API's apps.
func (s *Service) CreateBaselineDataFromJob(ctx context.Context, req v1api.CreateBaselineDataFromJobRequestObject) (v1api.CreateBaselineDataFromJobResponseObject, error) {
	if _, err := RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Labeler); err != nil {
		return nil, err
	}
	jobID, err := strconv.ParseInt(req.JobId, 10, 64)
	if err != nil {
		return nil, httpx.InvalidV1([]any{"path", "job_id"}, "value_error", "not a job id")
	}
	p := auth.MustFromContext(ctx)
	var j struct {
		App      uuid.UUID `db:"app_id"`
		Status   string    `db:"status"`
		Input    []byte    `db:"input"`
		Response *[]byte   `db:"response"`
	}
	// Job ids are unique across apps; the join keeps to the API's apps of the caller's organization.
	err = s.d.DB.GetContext(ctx, &j, `SELECT j.app_id, j.status, j.input, j.response FROM jobs j
		JOIN apps a ON a.id = j.app_id AND a.api_id = $2 AND a.organization_id = $3
		WHERE j.id = $1`, jobID, req.ApiId, p.OrganizationID)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, httpx.NotFound("job")
	}
	if err != nil {
		return nil, err
	}
	g, err := s.d.Grants.Resolve(ctx, p, j.App)
	if err != nil {
		return nil, err
	}
	if err := g.Require(access.Reviewer); err != nil {
		return nil, err
	}
	if j.Status != "COMPLETED" || j.Response == nil {
		return nil, httpx.NewError(http.StatusConflict, "conflict", "job %d is %s: only a COMPLETED job has a final response to copy", jobID, j.Status)
	}
	resp := *j.Response
	if len(resp) == 0 || resp[0] != '{' {
		// A baseline response is an object; a job that answered a bare value keeps it under "value".
		wrapped, _ := json.Marshal(map[string]json.RawMessage{"value": resp})
		resp = wrapped
	}
	var r row
	err = s.d.DB.GetContext(ctx, &r, `INSERT INTO baseline_data AS b (organization_id, api_id, type, input, response, source_job_id,
		created_by) VALUES ($1, $2, 'OWNER', $3, $4, $5, $6) RETURNING `+columns,
		p.OrganizationID, req.ApiId, string(j.Input), string(resp), jobID, actor(p))
	if err != nil {
		return nil, err
	}
	return v1api.CreateBaselineDataFromJob200JSONResponse(r.response(true)), nil
}

// UpdateBaselineData replaces input and response; type and label stay unless given.
func (s *Service) UpdateBaselineData(ctx context.Context, req v1api.UpdateBaselineDataRequestObject) (v1api.UpdateBaselineDataResponseObject, error) {
	if _, err := RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Manager); err != nil {
		return nil, err
	}
	b := req.Body
	in, resp, err := encode(b.Input, b.Response)
	if err != nil {
		return nil, err
	}
	var typ *string
	if b.Type != nil {
		t := string(*b.Type)
		typ = &t
	}
	var r row
	err = s.d.DB.GetContext(ctx, &r, `UPDATE baseline_data b SET input = $3, response = $4, type = coalesce($5, b.type),
		label = CASE WHEN $7 THEN $6 ELSE b.label END, source_job_id = coalesce($8, b.source_job_id), updated_at = now()
		WHERE b.api_id = $1 AND b.id = $2 RETURNING `+columns,
		req.ApiId, req.BaselineDataId, in, resp, typ, b.Label, b.Label != nil, b.SourceJobId)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, errRecordNotFound
	}
	if err != nil {
		return nil, err
	}
	return v1api.UpdateBaselineData200JSONResponse(r.response(true)), nil
}

// DeleteBaselineData deletes the record and answers it as it was.
func (s *Service) DeleteBaselineData(ctx context.Context, req v1api.DeleteBaselineDataRequestObject) (v1api.DeleteBaselineDataResponseObject, error) {
	if _, err := RequireAPI(ctx, s.d.DB, s.d.Grants, req.ApiId, access.Manager); err != nil {
		return nil, err
	}
	var r row
	err := s.d.DB.GetContext(ctx, &r, `DELETE FROM baseline_data b WHERE b.api_id = $1 AND b.id = $2 RETURNING `+columns,
		req.ApiId, req.BaselineDataId)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, errRecordNotFound
	}
	if err != nil {
		return nil, err
	}
	return v1api.DeleteBaselineData200JSONResponse(r.response(true)), nil
}
