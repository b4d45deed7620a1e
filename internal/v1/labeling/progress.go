package labeling

import (
	"context"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/access"
)

type progressRow struct {
	Awaiting int64 `db:"awaiting"`
	Held     int64 `db:"held"`
	Labeled  int64 `db:"labeled"`
	Reviewed int64 `db:"reviewed"`
}

type workerRow struct {
	WorkerID int64  `db:"worker_id"`
	Username string `db:"username"`
	Labeled  int64  `db:"labeled"`
	Reviewed int64  `db:"reviewed"`
	Holding  int    `db:"holding"`
}

// GetLabelingProgress counts the app's jobs waiting for a label (held or not), labeled and reviewed,
// overall and per worker.
func (s *Service) GetLabelingProgress(ctx context.Context, req v1api.GetLabelingProgressRequestObject) (v1api.GetLabelingProgressResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	var p progressRow
	err := s.d.DB.GetContext(ctx, &p, `SELECT
		  count(*) FILTER (WHERE j.status IN ('SCHEDULED', 'SUSPENDED') AND NOT coalesce(j.lock_expires_at > now(), false)) AS awaiting,
		  count(*) FILTER (WHERE j.status IN ('SCHEDULED', 'SUSPENDED') AND j.lock_expires_at > now()) AS held,
		  count(*) FILTER (WHERE j.labeled_by IS NOT NULL) AS labeled,
		  count(*) FILTER (WHERE j.labeled_by IS NOT NULL AND j.reviewed IS NOT NULL) AS reviewed
		FROM jobs j WHERE j.app_id = $1`, req.AppId)
	if err != nil {
		return nil, err
	}
	var workers []workerRow
	err = s.d.DB.SelectContext(ctx, &workers, `WITH
		l AS (SELECT labeled_by AS u, count(*) AS n FROM jobs WHERE app_id = $1 AND labeled_by IS NOT NULL GROUP BY 1),
		r AS (SELECT author AS u, count(DISTINCT job_id) AS n FROM job_feedback
		      WHERE app_id = $1 AND author IS NOT NULL AND correct IS NOT NULL GROUP BY 1),
		h AS (SELECT assigned_to AS u, count(*) AS n FROM jobs
		      WHERE app_id = $1 AND assigned_to IS NOT NULL AND lock_expires_at > now() GROUP BY 1),
		who AS (SELECT u FROM l UNION SELECT u FROM r UNION SELECT u FROM h)
		SELECT usr.worker_id, usr.email::text AS username, coalesce(l.n, 0) AS labeled, coalesce(r.n, 0) AS reviewed,
		       least(coalesce(h.n, 0), 1)::int AS holding
		FROM who JOIN users usr ON usr.id = who.u
		LEFT JOIN l ON l.u = who.u LEFT JOIN r ON r.u = who.u LEFT JOIN h ON h.u = who.u
		ORDER BY labeled DESC, usr.worker_id`, req.AppId)
	if err != nil {
		return nil, err
	}
	out := v1api.GetLabelingProgress200JSONResponse{AppId: req.AppId, AwaitingLabel: p.Awaiting, BeingLabeled: p.Held,
		Labeled: p.Labeled, Reviewed: p.Reviewed, TotalJobs: p.Awaiting + p.Held + p.Labeled,
		Workers: make([]v1api.WorkerLabelingProgress, len(workers))}
	if out.TotalJobs > 0 {
		out.PercentLabeled = float32(100 * float64(p.Labeled) / float64(out.TotalJobs))
	}
	if p.Labeled > 0 {
		out.PercentReviewed = float32(100 * float64(p.Reviewed) / float64(p.Labeled))
	}
	for i, w := range workers {
		out.Workers[i] = v1api.WorkerLabelingProgress{WorkerId: w.WorkerID, Username: w.Username, Labeled: w.Labeled,
			Reviewed: w.Reviewed, Holding: w.Holding}
	}
	return out, nil
}

// GetLabelingTimeLeft estimates the time to label the waiting jobs from the last 7 days: the mean
// time per label (from assignment to label) and the number of workers who labeled.
func (s *Service) GetLabelingTimeLeft(ctx context.Context, req v1api.GetLabelingTimeLeftRequestObject) (v1api.GetLabelingTimeLeftResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	since := now.Add(-7 * 24 * time.Hour)
	var r struct {
		Remaining int64    `db:"remaining"`
		Workers   int      `db:"workers"`
		Average   *float64 `db:"average"`
	}
	err := s.d.DB.GetContext(ctx, &r, `SELECT
		  (SELECT count(*) FROM jobs WHERE app_id = $1 AND status IN ('SCHEDULED', 'SUSPENDED')) AS remaining,
		  (SELECT count(DISTINCT actor) FROM job_history WHERE app_id = $1 AND event IN ('LABELED', 'RELABELED')
		     AND at >= $2 AND actor IS NOT NULL) AS workers,
		  (SELECT avg(l.secs) FROM (`+labelTimes+`) l) AS average`, req.AppId, since)
	if err != nil {
		return nil, err
	}
	out := v1api.GetLabelingTimeLeft200JSONResponse{AppId: req.AppId, RemainingJobs: r.Remaining, ActiveWorkers: r.Workers,
		AverageSecondsPerJob: f32(r.Average), ComputedAt: now}
	if r.Average != nil && r.Workers > 0 {
		left := float64(r.Remaining) * *r.Average / float64(r.Workers)
		l := float32(left)
		at := now.Add(time.Duration(left * float64(time.Second)))
		out.EstimatedSecondsLeft, out.EstimatedCompletionAt = &l, &at
	}
	return out, nil
}
