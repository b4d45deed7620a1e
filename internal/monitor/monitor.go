// Package monitor exposes loopwork's Prometheus metrics: HTTP requests by the contracts' operationId,
// the database pool, River's queues and the jobs this process works, the engine's task attempts,
// exports, mail deliveries and /v1 jobs by status, beside Go's runtime and process metrics.
//
// Every label has a bounded set of values (operation ids, task types, job kinds, queues, statuses and
// outcomes), never an organization, a user, an id or a raw path, so a tenant's traffic cannot grow
// the number of series.
package monitor

import (
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes loopwork's own metrics; the standard collectors keep their usual names (go_*,
// process_*, go_sql_*) so that existing dashboards find them.
const namespace = "loopwork"

// Metrics are the instruments of one server and the registry they are served from. Each server has
// its own registry, so two servers in one process (as in tests) do not count each other's work.
type Metrics struct {
	reg *prometheus.Registry
	log *slog.Logger

	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge

	jobsWorked  *prometheus.CounterVec
	jobWait     *prometheus.HistogramVec
	jobDuration *prometheus.HistogramVec

	taskAttempts *prometheus.CounterVec
	taskDuration *prometheus.HistogramVec

	exports *prometheus.CounterVec
	mail    *prometheus.CounterVec
}

// New registers every metric; db is the server's pool, whose statistics and whose tables the scrape
// reads (River's queue depth, the /v1 job counters).
func New(db *sql.DB, logger *slog.Logger) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), log: logger}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "http",
		Name: "requests_total", Help: "HTTP requests answered, by the contract's operationId, method and status code."},
		[]string{"operation", "method", "code"})
	// Latency leaves the status code out: it would multiply the buckets of every operation by each code
	// it ever answered, and the counter above already tells errors apart.
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "http",
		Name: "request_duration_seconds", Help: "Time from a request's arrival to its answer, by operationId and method.",
		Buckets: prometheus.DefBuckets}, []string{"operation", "method"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Subsystem: "http",
		Name: "requests_in_flight", Help: "HTTP requests being served now."})

	m.jobsWorked = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "river",
		Name: "jobs_worked_total", Help: "River jobs this process worked, by kind, queue and outcome " +
			"(completed, retryable, discarded, cancelled, snoozed)."}, []string{"kind", "queue", "outcome"})
	m.jobWait = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "river",
		Name: "job_wait_seconds", Help: "Time from a job's scheduled_at to the start of its attempt, by kind.",
		Buckets: waitBuckets}, []string{"kind"})
	m.jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "river",
		Name: "job_duration_seconds", Help: "Time one attempt of a job took to work, by kind.",
		Buckets: prometheus.DefBuckets}, []string{"kind"})

	m.taskAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "engine",
		Name: "task_attempts_total", Help: "Task attempts this process's executors ran, by task type and outcome " +
			"(completed, failed, timeout, waiting, parked)."}, []string{"type", "outcome"})
	m.taskDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Subsystem: "engine",
		Name: "task_duration_seconds", Help: "Time an executor took to run one task attempt, by task type.",
		Buckets: prometheus.DefBuckets}, []string{"type"})

	m.exports = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "exports",
		Name: "total", Help: "Exports of /v1 job responses, by event (started, succeeded, failed)."}, []string{"event"})
	m.mail = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Subsystem: "mail",
		Name: "deliveries_total", Help: "Delivery attempts of outgoing e-mail, by outcome (sent, logged, failed)."},
		[]string{"outcome"})

	m.reg.MustRegister(m.requests, m.latency, m.inFlight, m.jobsWorked, m.jobWait, m.jobDuration,
		m.taskAttempts, m.taskDuration, m.exports, m.mail,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(db, "loopwork"),
		newTables(db))
	return m
}

// waitBuckets reach further than the default ones: a job scheduled behind a backlog, or retried after
// a backoff, waits minutes.
var waitBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900}

// Handler serves the registry in Prometheus's text format. A metric read from the database that
// fails leaves only that metric out of the answer (and is logged), so one slow table does not hide
// every other metric.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      logAdapter{m.log},
	})
}

// logAdapter hands promhttp's errors to the server's logger.
type logAdapter struct{ l *slog.Logger }

func (a logAdapter) Println(v ...any) {
	if a.l != nil {
		a.l.Warn("metrics scrape", "error", fmt.Sprint(v...))
	}
}
