// Package labeling implements the /v1 labeling statistics: per-day labeling time, cost and quality over
// the last 30 days, the progress of an app's labeling, and an estimate of the time left. Everything is
// computed from the jobs and their history (the ASSIGNED, LABELED, RELABELED, EDITED and REVIEWED
// events the labeling and review routes record) and the usage recorded for jobs.
package labeling

import (
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/v1/access"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Grants *access.Grants
}

// Service implements the labeling statistics of v1api.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// days is the window of the per-day routes: the last 30 UTC days, today included.
const days = 30

// window answers the start of the first day bucket and the end of the last.
func window(now time.Time) (time.Time, time.Time) {
	today := now.UTC().Truncate(24 * time.Hour)
	return today.AddDate(0, 0, 1-days), today.AddDate(0, 0, 1)
}

// daySeries is the SQL of the day buckets from $2 on, as rows (start, stop).
const daySeries = `SELECT d AS start, d + interval '1 day' AS stop
	FROM generate_series($2::timestamptz, $2::timestamptz + interval '29 days', interval '1 day') d`

// labelTimes are the labels of the app since $2, each with the seconds from the assignment that led
// to it (the latest ASSIGNED of the job to the same worker before the label): labels given without
// taking the job through /label have no measured time and are left out.
const labelTimes = `SELECT h.id, h.at, h.job_id, h.actor, extract(epoch FROM h.at - a.at)::float8 AS secs
	FROM job_history h
	JOIN LATERAL (SELECT a.at FROM job_history a
	              WHERE a.job_id = h.job_id AND a.app_id = h.app_id AND a.event = 'ASSIGNED' AND a.at <= h.at
	                AND a.actor IS NOT DISTINCT FROM h.actor
	              ORDER BY a.at DESC LIMIT 1) a ON true
	WHERE h.app_id = $1 AND h.event IN ('LABELED', 'RELABELED') AND h.at >= $2`
