package health

import (
	"context"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// GetRoot tells a newcomer what this is and where to look next.
func (s *Service) GetRoot(ctx context.Context, _ platformapi.GetRootRequestObject) (platformapi.GetRootResponseObject, error) {
	base := httpx.BaseURL(ctx)
	return platformapi.GetRoot200JSONResponse{
		Name:        "loopwork",
		Version:     s.apiVersion,
		Description: "Human-in-the-loop apps and jobs (/v1) and a workflow platform (/api) in one service.",
		Status:      "running",
		Documentation: platformapi.DocumentationLinks{
			Openapi:     "/api/docs",
			Redoc:       "/api/redoc",
			OpenapiJson: "/api/openapi.json",
			Interactive: "/api/docs",
		},
		Health: platformapi.HealthLinks{
			Liveness:  "/health/liveness",
			Readiness: "/health/readiness",
			Detailed:  "/health/detailed",
		},
		Api:     platformapi.ApiInfo{Prefix: "/api", BaseUrl: base + "/api"},
		Message: "Welcome to loopwork. Explore both interfaces at " + base + "/api/docs.",
	}, nil
}
