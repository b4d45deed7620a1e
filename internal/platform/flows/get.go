package flows

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// GetFlow reads the latest version of a flow the caller may see, or the version asked for.
func (s *Service) GetFlow(ctx context.Context, req platformapi.GetFlowRequestObject) (platformapi.GetFlowResponseObject, error) {
	c := callerOf(ctx)
	f, err := visibleFlow(ctx, s.db, c, req.Id, false)
	if err != nil {
		return nil, err
	}
	number := 0
	if req.Params.Version != nil {
		number = *req.Params.Version
	}
	v, err := getVersion(ctx, s.db, f, number)
	if errors.Is(err, dbx.ErrNotFound) {
		return nil, httpx.NotFound("flow version")
	}
	if err != nil {
		return nil, err
	}
	counts, err := executionCounts(ctx, s.db, []uuid.UUID{f.ID})
	if err != nil {
		return nil, err
	}
	p := req.Params
	ex := expand{order: flag(p.IncludeOrderedTaskNames), errors: flag(p.IncludeValidationErrors),
		dynamic: flag(p.IncludeDynamicData), outputs: flag(p.IncludeOutputSchemas)}
	out, err := s.renderer(c, ex).flow(ctx, v, f.LatestVersion, counts[f.ID], nil)
	if err != nil {
		return nil, err
	}
	return flowReply{out, http.StatusOK}, nil
}

// ListFlowVersions pages through a flow's versions, newest first.
func (s *Service) ListFlowVersions(ctx context.Context, req platformapi.ListFlowVersionsRequestObject) (platformapi.ListFlowVersionsResponseObject, error) {
	c := callerOf(ctx)
	f, err := visibleFlow(ctx, s.db, c, req.Id, false)
	if err != nil {
		return nil, err
	}
	p := req.Params
	pg := httpx.NewPaging(p.Page, p.Limit)
	rows, err := listVersions(ctx, s.db, f.ID, pg.Limit, pg.Offset())
	if err != nil {
		return nil, err
	}
	counts, err := executionCounts(ctx, s.db, []uuid.UUID{f.ID})
	if err != nil {
		return nil, err
	}
	r := s.renderer(c, expand{order: flag(p.IncludeOrderedTaskNames), errors: flag(p.IncludeValidationErrors),
		dynamic: flag(p.IncludeDynamicData), outputs: flag(p.IncludeOutputSchemas)})
	out := make(versionsReply, 0, len(rows))
	for _, v := range rows {
		fr, err := r.flow(ctx, v, f.LatestVersion, counts[f.ID], nil)
		if err != nil {
			return nil, err
		}
		out = append(out, fr)
	}
	return out, nil
}
