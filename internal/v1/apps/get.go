package apps

import (
	"context"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// GetApp answers the app with, by default, its job counts per status, and on request its flow's tasks.
func (s *Service) GetApp(ctx context.Context, req v1api.GetAppRequestObject) (v1api.GetAppResponseObject, error) {
	g, err := s.d.Grants.Resolve(ctx, auth.MustFromContext(ctx), req.AppId)
	if err != nil {
		return nil, err
	}
	name, err := APIName(ctx, s.d.DB, g.App)
	if err != nil {
		return nil, err
	}
	out := ToResponse(g.App, name)
	if req.Params.JobStats == nil || *req.Params.JobStats {
		if out.JobStats, err = jobStats(ctx, s.d.DB, g.App.ID); err != nil {
			return nil, err
		}
	}
	if req.Params.WithSuperTasks != nil && *req.Params.WithSuperTasks {
		tasks, err := superTasks(ctx, s.d.DB, g.App.APIID)
		if err != nil {
			return nil, err
		}
		out.SuperTasks = &tasks
	}
	return v1api.GetApp200JSONResponse(out), nil
}

// CheckJobScoreExists tells whether any job of the app has a model confidence score.
func (s *Service) CheckJobScoreExists(ctx context.Context, req v1api.CheckJobScoreExistsRequestObject) (v1api.CheckJobScoreExistsResponseObject, error) {
	g, err := s.d.Grants.Resolve(ctx, auth.MustFromContext(ctx), req.AppId)
	if err != nil {
		return nil, err
	}
	var exists bool
	if err := s.d.DB.GetContext(ctx, &exists,
		dbx.CustomPlan+`SELECT EXISTS (SELECT 1 FROM jobs WHERE app_id = $1 AND score IS NOT NULL)`, g.App.ID); err != nil {
		return nil, err
	}
	return v1api.CheckJobScoreExists200JSONResponse{AppId: g.App.ID, Exists: exists}, nil
}

// UpdateOwnerActivity records that a manager of the app is active on it now; the activity recorded
// before moves to previous_owner_activity_at. It is not a change of the app, so updated_at stays.
func (s *Service) UpdateOwnerActivity(ctx context.Context, req v1api.UpdateOwnerActivityRequestObject) (v1api.UpdateOwnerActivityResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	out := v1api.UpdateOwnerActivity200JSONResponse{AppId: g.App.ID, UserId: p.UserID}
	err = s.d.DB.QueryRowxContext(ctx, `UPDATE apps SET previous_owner_activity_at = owner_activity_at,
		owner_activity_at = now() WHERE id = $1 RETURNING owner_activity_at, previous_owner_activity_at`, g.App.ID).
		Scan(&out.LastActivityAt, &out.PreviousActivityAt)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetJobFeedbackStats counts, per feedback tag, the app's jobs that carry it, most used first (ties by
// tag text), next to the number of jobs with any feedback. A job counts once per tag.
func (s *Service) GetJobFeedbackStats(ctx context.Context, req v1api.GetJobFeedbackStatsRequestObject) (v1api.GetJobFeedbackStatsResponseObject, error) {
	g, err := s.d.Grants.Resolve(ctx, auth.MustFromContext(ctx), req.AppId)
	if err != nil {
		return nil, err
	}
	out := v1api.GetJobFeedbackStats200JSONResponse{AppId: g.App.ID, Tags: []v1api.FeedbackTagCount{}}
	if err := s.d.DB.GetContext(ctx, &out.JobsWithFeedback,
		dbx.CustomPlan+`SELECT count(*) FROM jobs WHERE app_id = $1 AND feedback_count > 0`, g.App.ID); err != nil {
		return nil, err
	}
	var rows []struct {
		Tag string `db:"tag"`
		N   int64  `db:"n"`
	}
	if err := s.d.DB.SelectContext(ctx, &rows, dbx.CustomPlan+`SELECT t.tag, count(DISTINCT j.id) AS n
		FROM jobs j CROSS JOIN LATERAL unnest(j.feedback_tags) AS t(tag)
		WHERE j.app_id = $1 AND j.feedback_count > 0
		GROUP BY t.tag ORDER BY n DESC, t.tag`, g.App.ID); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Tags = append(out.Tags, v1api.FeedbackTagCount{Tag: r.Tag, JobCount: r.N,
			Share: float32(float64(r.N) / float64(out.JobsWithFeedback))})
	}
	return out, nil
}
