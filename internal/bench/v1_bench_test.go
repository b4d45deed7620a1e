package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/server"
	"github.com/loopwork/loopwork/internal/testkit"
)

const (
	clients  = 16
	million  = 1_000_000
	loadTime = 10 * time.Second
	// Submission and pgbench take rounds turns of roundTime each.
	rounds    = 3
	roundTime = 4 * time.Second
)

type client struct {
	t     testing.TB
	http  *http.Client
	base  string
	token string
}

// do sends a request; a body of []byte is sent as it is, any other body is encoded as JSON.
func (c client) do(method, path string, body any) (int, []byte, error) {
	var r io.Reader
	if raw, ok := body.([]byte); ok {
		r = bytes.NewReader(raw)
	} else if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res.StatusCode, out, err
}

func (c client) expect(status int) func(method, path string, body any) error {
	return func(method, path string, body any) error {
		got, b, err := c.do(method, path, body)
		if err != nil {
			return err
		}
		if got != status {
			return fmt.Errorf("%s %s: %d %s", method, path, got, b)
		}
		return nil
	}
}

func newApp(b *testing.B, env *testkit.Env, org uuid.UUID, name string) uuid.UUID {
	var id uuid.UUID
	if err := env.DB.Get(&id, `INSERT INTO apps (organization_id, name) VALUES ($1, $2) RETURNING id`, org, name); err != nil {
		b.Fatal(err)
	}
	return id
}

// BenchmarkV1 runs the /v1 scenario of the performance goals once (use -benchtime=1x): a million jobs
// in one app, then list, count, label leases, submission against pgbench, tagging 100,000 and
// cancelling 1,000,000. BENCH_JOBS=n seeds n jobs instead of a million, to try one part on a smaller
// table (-bench 'V1/label_lease'); the goals are figures at a million.
func BenchmarkV1(b *testing.B) {
	ctx := context.Background()
	// A keep-alive pool as large as the number of clients, as any load tool uses.
	transport := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	// The pool the server gets by default (LOOPWORK_DB_MAX_OPEN_CONNS, …), not the small one of tests:
	// with fewer idle connections than clients, every burst would open new connections.
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, 1_000_000_000); err != nil {
		b.Fatal(err)
	}
	c := client{t: b, http: &http.Client{Transport: transport}, base: env.URL, token: admin.Token}
	app := newApp(b, env, org, "bench")
	jobs := million
	if v := os.Getenv("BENCH_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("BENCH_JOBS=%q: want a number of jobs", v)
		}
		jobs = n
	}
	took, err := bench.SeedJobs(ctx, env.DB, org, app, jobs, false)
	if err != nil {
		b.Fatal(err)
	}
	report(b, fmt.Sprintf("seed %d jobs (SQL, for setup)", jobs), "%.1f s", took.Seconds())
	// Write the seeded pages out now rather than during the first measurement (needs a superuser;
	// without one the checkpoint simply comes when it comes).
	_, _ = env.DB.ExecContext(ctx, `CHECKPOINT`)
	appPath := "/v1/apps/" + app.String()

	b.Run("list_status_tags_size10", func(b *testing.B) {
		get := c.expect(200)
		path := appPath + "/jobs?statusIn=SCHEDULED&tags=t3&size=10&sortBy=id&orderBy=asc"
		r := measure(clients, loadTime, func(int) error { return get("GET", path, nil) })
		reportLoad(b, "list, size 10, statusIn+tags, sorted by id, 16 clients", r)
		b.ReportMetric(bench.Ms(r.P50), "p50-ms")
		b.ReportMetric(bench.Ms(r.P99), "p99-ms")
	})

	b.Run("list_status_tags_size10_one_client", func(b *testing.B) {
		get := c.expect(200)
		path := appPath + "/jobs?statusIn=SCHEDULED&tags=t3&size=10&sortBy=id&orderBy=asc"
		r := measure(1, loadTime/2, func(int) error { return get("GET", path, nil) })
		reportLoad(b, "list, size 10, statusIn+tags, one client", r)
		b.ReportMetric(bench.Ms(r.P50), "p50-ms")
		b.ReportMetric(bench.Ms(r.P99), "p99-ms")
	})

	b.Run("count_cached_one_client", func(b *testing.B) {
		get := c.expect(200)
		r := measure(1, loadTime/2, func(int) error { return get("GET", appPath+"/jobs/count", nil) })
		reportLoad(b, "count, useCache=true (counters), one client", r)
		b.ReportMetric(bench.Ms(r.P50), "p50-ms")
	})

	b.Run("count_cached", func(b *testing.B) {
		get := c.expect(200)
		r := measure(clients, loadTime/2, func(int) error { return get("GET", appPath+"/jobs/count", nil) })
		reportLoad(b, "count, useCache=true (counters), 16 clients", r)
		b.ReportMetric(bench.Ms(r.P50), "p50-ms")
	})

	b.Run("count_exact", func(b *testing.B) {
		get := c.expect(200)
		r := measure(1, 5*time.Second, func(int) error { return get("GET", appPath+"/jobs/count?useCache=false", nil) })
		reportLoad(b, fmt.Sprintf("count, useCache=false (exact count of %d)", jobs), r)
		b.ReportMetric(bench.Ms(r.P50), "p50-ms")
	})

	// After the reads, as it labels (completes) the jobs it leases; the list and counts above do not
	// meet them, and submission and tagging below hardly notice a few thousand completed jobs.
	b.Run("label_lease", func(b *testing.B) { labelLease(b, env, c, org, app) })

	b.Run("submit_vs_pgbench", func(b *testing.B) {
		// The two loads take turns, a few seconds each, so that both meet the table as it grows and
		// whatever else the machine does at the time; the ratio is of the totals.
		post := c.expect(201)
		body := map[string]any{"input": map[string]any{"text": "hello", "n": 1}, "tags": []string{"t1"}}
		submit := func(int) error { return post("POST", appPath+"/jobs", body) }
		bench.Run(clients, warmUp, submit)
		var all bench.Result
		var pgTx float64
		for round := 0; round < rounds; round++ {
			r := bench.Run(clients, roundTime, submit)
			all = all.Merge(r)
			tps := pgbench(b, testkit.DSN(b, env.DB), org, app, roundTime)
			pgTx += tps * roundTime.Seconds()
			report(b, fmt.Sprintf("round %d: submission / pgbench", round+1), "%.0f / %.0f = %.2f", r.PerSecond(), tps, r.PerSecond()/tps)
		}
		reportLoad(b, "job submission (HTTP, 16 clients)", all)
		submits := all.PerSecond()
		pg := pgTx / (rounds * roundTime).Seconds()
		ratio := submits / pg
		report(b, "same INSERT through pgbench (16 clients)", "%.0f tx/s", pg)
		report(b, "submission / pgbench", "%.2f", ratio)
		b.ReportMetric(submits, "submits/s")
		b.ReportMetric(pg, "pgbench-tps")
		b.ReportMetric(ratio, "ratio")
	})

	b.Run("tag_100k_by_filter", func(b *testing.B) {
		var first int64
		if err := env.DB.Get(&first, `SELECT min(id) FROM jobs WHERE app_id = $1`, app); err != nil {
			b.Fatal(err)
		}
		path := fmt.Sprintf("%s/jobs/tags?idGreaterThan=%d&idLessThan=%d", appPath, first-1, first+100_000)
		start := time.Now()
		if err := c.expect(204)("PUT", path, map[string]any{"tags": []string{"bench-tagged"}}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		var n int
		_ = env.DB.Get(&n, `SELECT count(*) FROM jobs WHERE app_id = $1 AND tags @> ARRAY['bench-tagged']`, app)
		report(b, fmt.Sprintf("tag 100,000 jobs by filter (%d tagged)", n), "%.2f s", took.Seconds())
		b.ReportMetric(took.Seconds(), "s")
	})

	b.Run("cancel_1M_by_filter", func(b *testing.B) {
		app2 := newApp(b, env, org, "bench-cancel")
		if _, err := bench.SeedJobs(ctx, env.DB, org, app2, million, true); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		status, body, err := c.do("POST", "/v1/apps/"+app2.String()+"/cancel", nil)
		if err != nil || status != 202 {
			b.Fatalf("cancel: %d %s %v", status, body, err)
		}
		var res struct {
			OperationID string `json:"operation_id"`
			Matched     int    `json:"matched"`
		}
		_ = json.Unmarshal(body, &res)
		for {
			_, ob, err := c.do("GET", "/v1/apps/"+app2.String()+"/operations/"+res.OperationID, nil)
			if err != nil {
				b.Fatal(err)
			}
			var op struct {
				Status    string `json:"status"`
				Processed int    `json:"processed"`
			}
			_ = json.Unmarshal(ob, &op)
			if op.Status == "SUCCEEDED" || op.Status == "FAILED" {
				if op.Status == "FAILED" {
					b.Fatalf("operation failed: %s", ob)
				}
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		took := time.Since(start)
		var left int
		_ = env.DB.Get(&left, `SELECT count(*) FROM jobs WHERE app_id = $1 AND status <> 'CANCELED'`, app2)
		report(b, fmt.Sprintf("cancel 1,000,000 jobs by filter (matched %d, %d left uncanceled)", res.Matched, left), "%.1f s", took.Seconds())
		b.ReportMetric(took.Seconds(), "s")
	})
}

// serverEnv starts the server as `loopwork serve` runs it: the default connection pool (not the small
// one of tests: with fewer idle connections than clients every burst would open new connections) and
// the garbage collector target.
func serverEnv(b *testing.B, opts ...testkit.Option) *testkit.Env {
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	server.TuneRuntime()
	db := testkit.DB(b)
	db.SetMaxOpenConns(cfg.DBMaxOpenConns)
	db.SetMaxIdleConns(cfg.DBMaxIdleConns)
	return testkit.NewEnv(b, append([]testkit.Option{testkit.WithDB(db)}, opts...)...)
}

// createFlow creates a flow from a FlowCreateRequest body and returns its id.
func (c client) createFlow(body []byte) string {
	st, out, err := c.do("POST", "/api/flows", body)
	if err != nil || st != http.StatusCreated {
		c.t.Fatalf("create flow: %d %v %.300s", st, err, out)
	}
	var f struct{ ID string }
	_ = json.Unmarshal(out, &f)
	return f.ID
}

// warmUp is how long each load runs unmeasured first, so that connections, prepared statements and
// memos are in place as they are on a server that has been up a while.
const warmUp = time.Second

func measure(clients int, d time.Duration, do func(int) error) bench.Result {
	bench.Run(clients, warmUp, do)
	return bench.Run(clients, d, do)
}

func report(b testing.TB, what, format string, v ...any) {
	line := fmt.Sprintf("%-62s "+format, append([]any{what}, v...)...)
	fmt.Fprintln(os.Stdout, "BENCH "+line)
}

func reportLoad(b testing.TB, what string, r bench.Result) {
	report(b, what, "p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.1f ms  %.0f req/s  (%d requests, %d errors)",
		bench.Ms(r.P50), bench.Ms(r.P90), bench.Ms(r.P99), bench.Ms(r.Max), r.PerSecond(), r.Requests, r.Errors)
	if r.Errors > 0 {
		b.Errorf("%s: %d errors", what, r.Errors)
	}
}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbench runs the job INSERT alone, at the same concurrency and on the same database, as the baseline.
func pgbench(b testing.TB, dsn string, org, app uuid.UUID, d time.Duration) float64 {
	sql := fmt.Sprintf(`INSERT INTO jobs (organization_id, app_id, status, processing_state, input, tags, priority) `+
		`VALUES ('%s', '%s', 'SCHEDULED', 'AWAITING_HUMAN', '{"text": "hello", "n": 1}', '{t1}', 5);`+"\n", org, app)
	return pgbenchScript(b, dsn, sql, clients, d)
}

// pgbenchScript runs a SQL script with pgbench for d at the concurrency given and returns its rate.
func pgbenchScript(b testing.TB, dsn, sql string, concurrency int, d time.Duration) float64 {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
		if len(matches) == 0 {
			b.Fatal("pgbench not found")
		}
		bin = matches[len(matches)-1]
	}
	script := filepath.Join(b.TempDir(), "script.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(bin, "-n", "-c", strconv.Itoa(concurrency), "-j", "2", "-T", strconv.Itoa(int(d.Seconds())),
		"-f", script, dsn).CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		b.Fatalf("pgbench output without tps: %s", out)
	}
	tps, _ := strconv.ParseFloat(strings.TrimSpace(string(m[1])), 64)
	return tps
}
