package labeling

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/metrics"
)

type bucket struct {
	Start    time.Time `db:"start"`
	Stop     time.Time `db:"stop"`
	Count    int64     `db:"n"`
	Measured int64     `db:"measured"`
	Total    float64   `db:"total"`
	Average  *float64  `db:"average"`
	Median   *float64  `db:"median"`
}

// labels are the labels of the app since $2 (LABELED and RELABELED events), each with its job.
const labels = `SELECT h.id, h.at, h.job_id, h.actor FROM job_history h
	WHERE h.app_id = $1 AND h.event IN ('LABELED', 'RELABELED') AND h.at >= $2`

// timeBuckets counts per day every label, and sums the value each label has in values (a query of
// (id, value) by history event id; a label it has no row for has no known value).
func (s *Service) timeBuckets(ctx context.Context, app uuid.UUID, start time.Time, values string) ([]v1api.LabelingTimeBucket, error) {
	var rows []bucket
	err := s.d.DB.SelectContext(ctx, &rows, `WITH days AS (`+daySeries+`), l AS (`+labels+`), v AS (`+values+`)
		SELECT d.start, d.stop, count(l.id) AS n, count(v.value) AS measured, coalesce(sum(v.value), 0)::float8 AS total,
		       avg(v.value)::float8 AS average,
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY v.value) AS median
		FROM days d LEFT JOIN l ON l.at >= d.start AND l.at < d.stop LEFT JOIN v ON v.id = l.id
		GROUP BY d.start, d.stop ORDER BY d.start`, app, start)
	if err != nil {
		return nil, err
	}
	out := make([]v1api.LabelingTimeBucket, len(rows))
	for i, r := range rows {
		out[i] = v1api.LabelingTimeBucket{Start: r.Start.UTC(), End: r.Stop.UTC(), JobCount: r.Count,
			MeasuredCount: r.Measured, Total: r.Total, Average: r.Average, Median: r.Median}
	}
	return out, nil
}

// GetLabelingJobsTimeOverTime: per day, the labels with a measured time and the seconds they took.
func (s *Service) GetLabelingJobsTimeOverTime(ctx context.Context, req v1api.GetLabelingJobsTimeOverTimeRequestObject) (v1api.GetLabelingJobsTimeOverTimeResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	start, end := window(time.Now())
	b, err := s.timeBuckets(ctx, req.AppId, start, `SELECT t.id, t.secs AS value FROM (`+labelTimes+`) t`)
	if err != nil {
		return nil, err
	}
	return v1api.GetLabelingJobsTimeOverTime200JSONResponse{AppId: req.AppId, Interval: "day", Unit: "seconds",
		Start: start, End: end, Buckets: b}, nil
}

// GetLabelingJobsCostOverTime: per day, the jobs labeled and the credits recorded as usage of those jobs.
func (s *Service) GetLabelingJobsCostOverTime(ctx context.Context, req v1api.GetLabelingJobsCostOverTimeRequestObject) (v1api.GetLabelingJobsCostOverTimeResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	start, end := window(time.Now())
	b, err := s.timeBuckets(ctx, req.AppId, start, `SELECT h.id,
			(SELECT coalesce(sum(u.amount), 0) FROM usage_records u
			 WHERE u.organization_id = h.organization_id AND u.job_id = h.job_id)::float8 AS value
		FROM job_history h WHERE h.app_id = $1 AND h.event IN ('LABELED', 'RELABELED') AND h.at >= $2`)
	if err != nil {
		return nil, err
	}
	return v1api.GetLabelingJobsCostOverTime200JSONResponse{AppId: req.AppId, Interval: "day", Unit: "credits",
		Start: start, End: end, Buckets: b}, nil
}

type metricsRow struct {
	Start      time.Time `db:"start"`
	Stop       time.Time `db:"stop"`
	Labeled    int64     `db:"labeled"`
	Reviewed   int64     `db:"reviewed"`
	Correct    int64     `db:"correct"`
	NotCorrect int64     `db:"not_correct"`
	Edited     int64     `db:"edited"`
	Relabeled  int64     `db:"relabeled"`
}

// GetLabelingJobsMetricsOverTime: per day, the labeling and review events and the share judged correct.
func (s *Service) GetLabelingJobsMetricsOverTime(ctx context.Context, req v1api.GetLabelingJobsMetricsOverTimeRequestObject) (v1api.GetLabelingJobsMetricsOverTimeResponseObject, error) {
	if _, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler); err != nil {
		return nil, err
	}
	start, end := window(time.Now())
	var rows []metricsRow
	err := s.d.DB.SelectContext(ctx, &rows, `WITH days AS (`+daySeries+`),
		e AS (SELECT h.at, h.event, h.details ->> 'verdict' AS verdict FROM job_history h
		      WHERE h.app_id = $1 AND h.at >= $2 AND h.event IN ('LABELED', 'RELABELED', 'EDITED', 'REVIEWED'))
		SELECT d.start, d.stop,
		  count(*) FILTER (WHERE e.event IN ('LABELED', 'RELABELED')) AS labeled,
		  count(*) FILTER (WHERE e.event = 'REVIEWED') AS reviewed,
		  count(*) FILTER (WHERE e.event = 'REVIEWED' AND e.verdict = 'CORRECT') AS correct,
		  count(*) FILTER (WHERE e.event = 'REVIEWED' AND e.verdict = 'NOT_CORRECT') AS not_correct,
		  count(*) FILTER (WHERE e.event IN ('EDITED', 'RELABELED')) AS edited,
		  count(*) FILTER (WHERE e.event = 'RELABELED') AS relabeled
		FROM days d LEFT JOIN e ON e.at >= d.start AND e.at < d.stop
		GROUP BY d.start, d.stop ORDER BY d.start`, req.AppId, start)
	if err != nil {
		return nil, err
	}
	units, err := s.relabels(ctx, req.AppId, start)
	if err != nil {
		return nil, err
	}
	out := v1api.GetLabelingJobsMetricsOverTime200JSONResponse{AppId: req.AppId, Interval: "day", Start: start, End: end,
		Buckets: make([]v1api.LabelingMetricsBucket, len(rows))}
	for i, r := range rows {
		b := v1api.LabelingMetricsBucket{Start: r.Start.UTC(), End: r.Stop.UTC(), Labeled: r.Labeled, Reviewed: r.Reviewed,
			Correct: r.Correct, NotCorrect: r.NotCorrect, Edited: r.Edited, Relabeled: r.Relabeled}
		if r.Reviewed > 0 {
			a := float64(r.Correct) / float64(r.Reviewed)
			b.Accuracy = &a
		}
		if alpha, _, ok := metrics.Alpha(units[r.Start.UTC().Format(time.DateOnly)]); ok {
			b.Agreement = &alpha
		}
		out.Buckets[i] = b
	}
	return out, nil
}

// relabels are, per UTC day, the jobs relabeled that day as units of two labels: the response before
// the relabel (the event's previous_response) and the job's response now.
func (s *Service) relabels(ctx context.Context, app uuid.UUID, start time.Time) (map[string][][]string, error) {
	var rows []struct {
		Day      time.Time `db:"day"`
		Previous *string   `db:"previous"`
		Now      *string   `db:"now"`
	}
	err := s.d.DB.SelectContext(ctx, &rows, `SELECT date_trunc('day', h.at AT TIME ZONE 'UTC') AS day,
			(h.details -> 'previous_response')::text AS previous, j.response::text AS now
		FROM job_history h JOIN jobs j ON j.app_id = h.app_id AND j.id = h.job_id
		WHERE h.app_id = $1 AND h.event = 'RELABELED' AND h.at >= $2`, app, start)
	if err != nil {
		return nil, err
	}
	out := map[string][][]string{}
	for _, r := range rows {
		if r.Previous == nil || r.Now == nil {
			continue
		}
		day := r.Day.Format(time.DateOnly)
		out[day] = append(out[day], []string{canonical(*r.Previous), canonical(*r.Now)})
	}
	return out, nil
}

// canonical is a JSON text with its objects' keys sorted, so equal labels compare equal.
func canonical(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func f32(v *float64) *float32 {
	if v == nil {
		return nil
	}
	f := float32(*v)
	return &f
}
