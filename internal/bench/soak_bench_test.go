package bench_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkSoak runs the load script's traffic (bench.Mix, with a flow execution every eighth call) at
// 16 clients against one server process for LOOPWORK_SOAK (make soak: 30m), and samples the process's
// memory, goroutines and database connections every LOOPWORK_SOAK_EVERY (default 30s). After a warm-up
// of a fifth of the run, each must stay flat: the last samples may not exceed the first ones by more
// than a margin. It is skipped unless LOOPWORK_SOAK is set (make bench does not run it).
func BenchmarkSoak(b *testing.B) {
	d, err := time.ParseDuration(os.Getenv("LOOPWORK_SOAK"))
	if err != nil || d <= 0 {
		b.Skip("LOOPWORK_SOAK is not set (make soak sets 30m)")
	}
	every := 30 * time.Second
	if e, err := time.ParseDuration(os.Getenv("LOOPWORK_SOAK_EVERY")); err == nil && e > 0 {
		every = e
	}
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

	var samples []soakSample
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for !stop.Load() {
			s := soakSample{At: time.Since(start), RSS: srv.RSS(), Goroutines: goroutines(b, "http://"+metrics)}
			_ = db.Get(&s.Conns, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'loopwork-soak'`)
			samples = append(samples, s)
			report(b, "soak sample", "t=%s rss=%.0f MB goroutines=%d connections=%d jobs=%d",
				s.At.Round(time.Second), float64(s.RSS)/(1<<20), s.Goroutines, s.Conns, mix.Submitted.Load())
			for t := time.Now(); time.Since(t) < every && !stop.Load(); {
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	res := bench.Run(clients, d, mix.Do)
	stop.Store(true)
	<-done
	report(b, "soak", "%s, %d requests (%.0f/s), %d failed, p50 %s p99 %s; %d jobs, %d executions",
		d, res.Requests, res.PerSecond(), res.Errors, res.P50, res.P99, mix.Submitted.Load(), mix.Started.Load())
	if res.Errors > 0 {
		b.Errorf("%d requests failed", res.Errors)
	}
	judgeSoak(b, samples)
}

type soakSample struct {
	At         time.Duration
	RSS        int64
	Goroutines int
	Conns      int
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

// judgeSoak compares the samples just after the warm-up (the first fifth of the run) with the last ones:
// memory may grow by 15% plus 16 MB of collector headroom, goroutines by 32 (16 clients' requests in
// flight come and go), connections by 2; more is a leak.
func judgeSoak(b *testing.B, s []soakSample) {
	if len(s) < 10 {
		b.Fatalf("only %d samples: run longer or sample more often", len(s))
	}
	warm := len(s) / 5
	first, last := peak(s[warm:warm+3]), peak(s[len(s)-3:])
	report(b, "soak after warm-up", "rss %.0f → %.0f MB, goroutines %d → %d, connections %d → %d",
		float64(first.RSS)/(1<<20), float64(last.RSS)/(1<<20), first.Goroutines, last.Goroutines, first.Conns, last.Conns)
	for _, x := range s {
		if x.Goroutines < 0 {
			b.Fatalf("the server's metrics gave no go_goroutines at %s", x.At)
		}
	}
	if float64(last.RSS) > float64(first.RSS)*1.15+16<<20 {
		b.Errorf("memory grew from %d to %d bytes", first.RSS, last.RSS)
	}
	if last.Goroutines > first.Goroutines+32 {
		b.Errorf("goroutines grew from %d to %d", first.Goroutines, last.Goroutines)
	}
	if last.Conns > first.Conns+2 {
		b.Errorf("database connections grew from %d to %d", first.Conns, last.Conns)
	}
}

// peak is the highest of each measure over a few samples, so one quiet moment does not pass for flat.
func peak(s []soakSample) soakSample {
	var p soakSample
	for _, x := range s {
		p.RSS, p.Goroutines, p.Conns = max(p.RSS, x.RSS), max(p.Goroutines, x.Goroutines), max(p.Conns, x.Conns)
	}
	return p
}
