package monitor

import (
	"context"
	"database/sql"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/loopwork/loopwork/internal/v1/counts"
)

// tables reads, at each scrape, what the database knows and no single process does: River's queue
// depth and the /v1 jobs by status. Both are the same on every replica (aggregate them with max, not
// sum), and both queries cost what the work pending or the number of apps is, never the number of
// jobs ever run:
//   - River's depth counts only unfinished jobs, through River's own index on (state, queue, …);
//     completed, cancelled and discarded rows are never read.
//   - Job counts come from job_counters, the per-app counters triggers keep current (a few rows per
//     app and status), not from the jobs table.
type tables struct {
	db    *sql.DB
	depth *prometheus.Desc
	jobs  *prometheus.Desc
}

// scrapeTimeout bounds the queries of one scrape, well inside Prometheus's default 10s scrape timeout.
const scrapeTimeout = 5 * time.Second

// depthStates are the states of jobs that wait or run; the others are final.
var depthStates = []string{"available", "running", "retryable", "scheduled"}

func newTables(db *sql.DB) *tables {
	return &tables{db: db,
		depth: prometheus.NewDesc(namespace+"_river_queue_jobs", "River jobs not yet finished, by queue and state "+
			"(available, running, retryable, scheduled); read from the database at each scrape.", []string{"queue", "state"}, nil),
		jobs: prometheus.NewDesc(namespace+"_v1_jobs", "/v1 jobs of every app of every organization, by status; "+
			"read from the job counters at each scrape.", []string{"status"}, nil),
	}
}

func (t *tables) Describe(ch chan<- *prometheus.Desc) {
	ch <- t.depth
	ch <- t.jobs
}

func (t *tables) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	t.collectDepth(ctx, ch)
	t.collectJobs(ctx, ch)
}

func (t *tables) collectDepth(ctx context.Context, ch chan<- prometheus.Metric) {
	// Every queue River knows is reported with all four states, zero included, so that a queue that
	// empties shows 0 rather than vanishing.
	depth := map[string]map[string]int64{}
	queues, err := t.db.QueryContext(ctx, `SELECT name FROM river_queue`)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(t.depth, err)
		return
	}
	for queues.Next() {
		var q string
		if err := queues.Scan(&q); err != nil {
			queues.Close()
			ch <- prometheus.NewInvalidMetric(t.depth, err)
			return
		}
		depth[q] = map[string]int64{}
	}
	queues.Close()
	rows, err := t.db.QueryContext(ctx, `SELECT queue, state::text, count(*) FROM river_job
		WHERE state IN ('available', 'running', 'retryable', 'scheduled') GROUP BY queue, state`)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(t.depth, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var q, state string
		var n int64
		if err := rows.Scan(&q, &state, &n); err != nil {
			ch <- prometheus.NewInvalidMetric(t.depth, err)
			return
		}
		if depth[q] == nil {
			depth[q] = map[string]int64{}
		}
		depth[q][state] = n
	}
	if err := rows.Err(); err != nil {
		ch <- prometheus.NewInvalidMetric(t.depth, err)
		return
	}
	for q, by := range depth {
		for _, s := range depthStates {
			ch <- prometheus.MustNewConstMetric(t.depth, prometheus.GaugeValue, float64(by[s]), q, s)
		}
	}
}

func (t *tables) collectJobs(ctx context.Context, ch chan<- prometheus.Metric) {
	n := make(map[string]int64, len(counts.Statuses))
	rows, err := t.db.QueryContext(ctx, `SELECT status, sum(n)::bigint FROM job_counters GROUP BY status`)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(t.jobs, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var c int64
		if err := rows.Scan(&status, &c); err != nil {
			ch <- prometheus.NewInvalidMetric(t.jobs, err)
			return
		}
		n[status] = c
	}
	if err := rows.Err(); err != nil {
		ch <- prometheus.NewInvalidMetric(t.jobs, err)
		return
	}
	for _, s := range counts.Statuses {
		ch <- prometheus.MustNewConstMetric(t.jobs, prometheus.GaugeValue, float64(n[s]), s)
	}
}
