package bench_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkSoak runs the load script's traffic (bench.Mix, with a flow execution every eighth call) at
// 16 clients against one server process for LOOPWORK_SOAK (make soak: 30m), and samples the process's
// memory, goroutines and database connections every LOOPWORK_SOAK_EVERY (default 5s; a line every 30
// s). After a warm-up (a tenth of the run, from one to three minutes) it judges the run (bench.JudgeSoak): the
// last fifth's throughput and p99 against the first fifth's, and each measure's trend over every
// sample. It prints the statements that took most of the database's time in the first fifth and in
// the last (pg_stat_statements, when the cluster loads it: make soak starts one that does). It is
// skipped unless LOOPWORK_SOAK is set (make bench does not run it).
func BenchmarkSoak(b *testing.B) {
	d, err := time.ParseDuration(os.Getenv("LOOPWORK_SOAK"))
	if err != nil || d <= 0 {
		b.Skip("LOOPWORK_SOAK is not set (make soak sets 30m)")
	}
	every := 5 * time.Second
	if e, err := time.ParseDuration(os.Getenv("LOOPWORK_SOAK_EVERY")); err == nil && e > 0 {
		every = e
	}
	// The warm-up is a tenth of the run, but at least a minute: autovacuum's first round (its naptime
	// is a minute) analyzes the fresh tables, and until then the planner guesses at tables it has no
	// statistics for (a 2-minute run served 436 requests/s before it and 631 after); at most three.
	warm := min(max(d/10, time.Minute), 3*time.Minute)
	bin := testkit.BuildServer(b)
	db := testkit.DB(b)
	dsn := testkit.DSN(b, db)
	key := testkit.SeedCaller(b, db)
	metrics := testkit.FreePort(b)
	srv := testkit.Serve(b, bin, withAppName(dsn, "loopwork-soak"), testkit.FreePort(b), "LOOPWORK_METRICS_ADDR="+metrics)
	app, err := bench.NewApp(srv.URL, key)
	if err != nil {
		b.Fatal(err)
	}
	var flow struct{ ID string }
	testkit.Call(b, srv.URL, key, "POST", "/api/flows", json.RawMessage(fanFlow(`{"name": "pause", "type": "delay", "parameters": {"seconds": 1}}`)), &flow)
	mix := &bench.Mix{Base: srv.URL, Key: key, App: app, Flow: flow.ID, Every: 8,
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}}
	stmts := newStatements(b, db)

	var samples []bench.SoakSample
	var calls atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	wg.Add(2)
	go func() {
		defer wg.Done()
		var lastLine time.Duration
		var lastCalls int64
		for !stop.Load() {
			s := bench.SoakSample{At: time.Since(start), RSS: srv.RSS(), Goroutines: goroutines(b, "http://"+metrics)}
			_ = db.Get(&s.Conns, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'loopwork-soak'`)
			samples = append(samples, s)
			if len(samples) == 1 || s.At-lastLine >= 30*time.Second {
				n := calls.Load()
				report(b, "soak sample", "t=%s rss=%.0f MB goroutines=%d connections=%d jobs=%d req/s=%.0f",
					s.At.Round(time.Second), float64(s.RSS)/(1<<20), s.Goroutines, s.Conns, mix.Submitted.Load(),
					float64(n-lastCalls)/max(s.At-lastLine, time.Second).Seconds())
				lastLine, lastCalls = s.At, n
			}
			for t := time.Now(); time.Since(t) < every && !stop.Load(); {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}()
	// The statements' figures: counted from the warm-up's end, read at the end of the first fifth and
	// over the last fifth.
	go func() {
		defer wg.Done()
		fifth := (d - warm) / 5
		at := func(t time.Duration) bool {
			for time.Since(start) < t {
				if stop.Load() {
					return false
				}
				time.Sleep(100 * time.Millisecond)
			}
			return true
		}
		if !at(warm) {
			return
		}
		stmts.reset()
		if !at(warm + fifth) {
			return
		}
		stmts.report("soak statements, first fifth", nil, stmts.read())
		if !at(d - fifth) {
			return
		}
		before := stmts.read()
		if !at(d) {
			return
		}
		stmts.report("soak statements, last fifth", before, stmts.read())
	}()
	res := bench.Run(clients, d, func(c int) error { calls.Add(1); return mix.Do(c) })
	// The statements' last reading comes at d, just after the traffic's end.
	for time.Since(start) < d+200*time.Millisecond {
		time.Sleep(50 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	report(b, "soak", "%s, %d requests (%.0f/s), %d failed, p50 %s p99 %s; %d jobs, %d executions",
		d, res.Requests, res.PerSecond(), res.Errors, res.P50, res.P99, mix.Submitted.Load(), mix.Started.Load())
	if res.Errors > 0 {
		b.Errorf("%d requests failed", res.Errors)
	}
	v := bench.JudgeSoak(res, warm, samples)
	for i, f := range v.Fifths {
		report(b, fmt.Sprintf("soak fifth %d (from %s)", i+1, (warm+time.Duration(i)*(d-warm)/5).Round(time.Second)),
			"%.0f req/s, p50 %s, p99 %s, %d failed", f.PerSecond(), f.P50, f.P99, f.Errors)
	}
	for _, t := range v.Trends {
		report(b, "soak trend after warm-up", "%s", t)
	}
	for _, f := range v.Failures {
		b.Error(f)
	}
	if len(v.Failures) == 0 {
		report(b, "soak verdict", "held: throughput, p99, memory, goroutines and connections")
	}
}

// withAppName names the server's connections so the soak can count them in pg_stat_activity.
func withAppName(dsn, name string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&application_name=" + name
	}
	return dsn + "?application_name=" + name
}

// goroutines reads go_goroutines from the server's metrics.
func goroutines(b *testing.B, base string) int {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		b.Logf("metrics: %v", err)
		return -1
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	return -1
}

// statements reads pg_stat_statements for the soak's database, when the cluster loads it (make soak
// starts one with shared_preload_libraries=pg_stat_statements); otherwise it says so once and reads
// nothing.
type statements struct {
	b  *testing.B
	db *sqlx.DB
	ok bool
}

type statement struct {
	Query   string  `db:"query"`
	Calls   int64   `db:"calls"`
	TotalMs float64 `db:"total_exec_time"`
}

func newStatements(b *testing.B, db *sqlx.DB) *statements {
	s := &statements{b: b, db: db}
	if _, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		report(b, "soak statements", "pg_stat_statements is not installed: %v", err)
		return s
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM pg_stat_statements LIMIT 1`); err != nil {
		report(b, "soak statements", "pg_stat_statements is not loaded (shared_preload_libraries): %v", err)
		return s
	}
	s.ok = true
	return s
}

func (s *statements) reset() {
	if !s.ok {
		return
	}
	if _, err := s.db.Exec(`SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`); err != nil {
		report(s.b, "soak statements", "reset: %v", err)
	}
}

// read is every statement's figures so far, by queryid.
func (s *statements) read() map[int64]statement {
	if !s.ok {
		return nil
	}
	var rows []struct {
		ID int64 `db:"queryid"`
		statement
	}
	if err := s.db.Select(&rows, `SELECT queryid, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query, calls, total_exec_time
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		report(s.b, "soak statements", "read: %v", err)
		return nil
	}
	m := make(map[int64]statement, len(rows))
	for _, r := range rows {
		m[r.ID] = r.statement
	}
	return m
}

// report prints the ten statements that took most of the time between two readings.
func (s *statements) report(what string, before, after map[int64]statement) {
	if !s.ok {
		return
	}
	var diff []statement
	var total float64
	for id, a := range after {
		p := before[id]
		d := statement{Query: a.Query, Calls: a.Calls - p.Calls, TotalMs: a.TotalMs - p.TotalMs}
		if d.Calls > 0 {
			diff = append(diff, d)
			total += d.TotalMs
		}
	}
	slices.SortFunc(diff, func(x, y statement) int { return cmp.Compare(y.TotalMs, x.TotalMs) })
	report(s.b, what, "%.0f ms in %d statements; the ten that took most:", total, len(diff))
	for _, d := range diff[:min(10, len(diff))] {
		fmt.Fprintf(os.Stdout, "    %8.0f ms %4.1f%% %8d calls %7.2f ms  %s\n", d.TotalMs, 100*d.TotalMs/max(total, 1), d.Calls,
			d.TotalMs/float64(d.Calls), d.Query)
	}
}
