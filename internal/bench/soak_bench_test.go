package bench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/credits"
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
	// The seeded organization's 100,000 credits last this traffic about ten minutes: a longer soak would
	// measure 402s. It gets what the load script grants.
	var org uuid.UUID
	if err := db.Get(&org, `SELECT organization_id FROM users WHERE email = 'admin@crash.test'`); err != nil {
		b.Fatal(err)
	}
	if err := credits.Grant(context.Background(), db, org, 100_000_000); err != nil {
		b.Fatal(err)
	}
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
