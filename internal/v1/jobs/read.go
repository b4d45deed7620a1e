package jobs

import (
	"context"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// GetJob answers one job of the app with its feedback messages.
func (s *Service) GetJob(ctx context.Context, req v1api.GetJobRequestObject) (v1api.GetJobResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	j, err := fullJob(ctx, s.d.DB, g, req.JobId)
	if err != nil {
		return nil, err
	}
	return v1api.GetJob200JSONResponse(j), nil
}

// DeleteJob deletes one job; its feedback and history go with it (ON DELETE CASCADE) and the status
// counters follow through their trigger. Jobs carry no flow execution yet (the flow runner attaches
// them), so there is none to cancel first.
func (s *Service) DeleteJob(ctx context.Context, req v1api.DeleteJobRequestObject) (v1api.DeleteJobResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	res, err := s.d.DB.ExecContext(ctx, `DELETE FROM jobs WHERE id = $1 AND app_id = $2 AND organization_id = $3`,
		req.JobId, g.App.ID, g.App.OrganizationID)
	if err != nil {
		return nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, errJobNotFound()
	}
	return v1api.DeleteJob204Response{}, nil
}
