package integrations

import (
	"context"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// ListIntegrationCatalog pages through the fixed catalog, by category and name.
func (s *Service) ListIntegrationCatalog(_ context.Context, req platformapi.ListIntegrationCatalogRequestObject) (platformapi.ListIntegrationCatalogResponseObject, error) {
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	var match []entry
	for _, e := range sorted {
		if req.Params.Category == nil || *req.Params.Category == e.category {
			match = append(match, e)
		}
	}
	out := platformapi.ListIntegrationCatalog200JSONResponse{Items: []platformapi.IntegrationCatalogResponse{},
		Total: len(match), Page: pg.Page, Limit: pg.Limit}
	for i := pg.Offset(); i < len(match) && i < pg.Offset()+pg.Limit; i++ {
		out.Items = append(out.Items, match[i].response())
	}
	return out, nil
}

// GetIntegrationCatalogEntry answers one entry by its id.
func (s *Service) GetIntegrationCatalogEntry(_ context.Context, req platformapi.GetIntegrationCatalogEntryRequestObject) (platformapi.GetIntegrationCatalogEntryResponseObject, error) {
	for _, e := range entries {
		if e.id() == req.Id {
			return platformapi.GetIntegrationCatalogEntry200JSONResponse(e.response()), nil
		}
	}
	return nil, httpx.NotFound("catalog entry")
}
