package bench_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
)

// BenchmarkReviewsAtOnce runs once (-benchtime=1x): one execution waits on 100 reviews side by side
// (root → 100 human_review tasks → join), and all 100 are completed at once through the API, each by
// its own client. Completing a review resumes the execution in the same transaction (its attempt is
// reported and the join's counter moves), so each request's time is the time that review took to
// resume the execution; all of them contend for that one execution. The report gives their p50 and
// p99 against one durable commit at one client (pgbench, same run), and when the join started after
// the last completion.
func BenchmarkReviewsAtOnce(b *testing.B) {
	const width = 100
	r := newEngineRun(b, "reviews at once")
	admin := r.env.User(b, r.org, auth.RoleOrgAdmin)
	c := client{t: b, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: width}}, base: r.env.URL, token: admin.Token}
	var tasks, edges []string
	tasks = append(tasks, `{"name": "root", "type": "transform", "parameters": {"expression": "{text: \"check me\"}"}}`,
		`{"name": "join", "type": "transform", "parameters": {"expression": "length"}}`)
	for i := 0; i < width; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"name": "r%d", "type": "human_review", "parameters": {"assigned_users": [%q]}}`, i, admin.UserID))
		edges = append(edges, fmt.Sprintf(`{"source": "root", "target": "r%d"}, {"source": "r%d", "target": "join"}`, i, i))
	}
	flow := c.createFlow([]byte(`{"display_name": "100 reviews", "definition": {"version": 1, "tasks": [` +
		strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}}`))
	r.c = c
	var p99s []float64
	for round := 0; round < 3; round++ {
		exec, err := r.start(flow)
		if err != nil {
			b.Fatal(err)
		}
		var reviews []string
		for deadline := time.Now().Add(30 * time.Second); len(reviews) < width; time.Sleep(5 * time.Millisecond) {
			reviews = reviews[:0]
			if err := r.env.DB.Select(&reviews, `SELECT id FROM human_review_tasks WHERE flow_execution_id = $1 AND status = 'pending'`, exec); err != nil {
				b.Fatal(err)
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d reviews open after 30 s, want %d", len(reviews), width)
			}
		}
		took, all := completeAtOnce(b, c, reviews)
		var joinAfter float64
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			err := r.env.DB.Get(&joinAfter, `SELECT extract(epoch FROM a.started_at - (SELECT max(completed_at) FROM human_review_tasks
				WHERE flow_execution_id = $1)) * 1000 FROM task_executions a WHERE a.flow_execution_id = $1 AND a.task_name = 'join'
				AND a.started_at IS NOT NULL`, exec)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the join did not start within 30 s of the last review")
			}
		}
		p50, p99 := took[width/2], took[width*99/100]
		report(b, fmt.Sprintf("100 reviews of one execution completed at once, round %d: each completion (resumes the execution)", round+1),
			"p50 %.2f ms  p99 %.2f ms  (all in %.0f ms); join started %.1f ms after the last", p50, p99, bench.Ms(all), joinAfter)
		p99s = append(p99s, p99)
	}
	// The same 100 completions, each of a review of its own execution: what they cost without
	// contending for one execution, on the same server and machine.
	single := c.createFlow([]byte(fmt.Sprintf(`{"display_name": "one review", "definition": {"version": 1, "tasks": [
		{"name": "root", "type": "transform", "parameters": {"expression": "{text: \"check me\"}"}},
		{"name": "r", "type": "human_review", "parameters": {"assigned_users": [%q]}}], "edges": [{"source": "root", "target": "r"}]}}`, admin.UserID)))
	// A first 100, unmeasured: their statements are prepared on every connection of the pool, as the
	// measured ones' are (the rounds above prepared the statements of one execution's completions).
	completeAtOnce(b, c, openReviews(b, r, single, width))
	own := openReviews(b, r, single, width)
	stmts := newStatements(b, r.env.DB)
	before := stmts.read()
	took, all := completeAtOnce(b, c, own)
	after := stmts.read()
	report(b, "100 reviews of 100 executions (one each) completed at once", "p50 %.2f ms  p99 %.2f ms  (all in %.0f ms)",
		took[width/2], took[width*99/100], bench.Ms(all))
	if after != nil {
		report(b, "  statements a completion sends PostgreSQL (pg_stat_statements)", "%.1f", float64(calls(before, after))/width)
		stmts.report("  the completions' statements", before, after)
	}
	floors(b, c, own)
	// And 100 more, one after another: what a lone completion takes, queueing for nothing.
	var lone []float64
	for _, id := range openReviews(b, r, single, width) {
		took, _ := completeAtOnce(b, c, []string{id})
		lone = append(lone, took[0])
	}
	sort.Float64s(lone)
	report(b, "100 reviews of 100 executions completed one after another", "p50 %.2f ms  p99 %.2f ms", lone[width/2], lone[width*99/100])
	commit := r.commitLatency()
	for i, p99 := range p99s {
		report(b, fmt.Sprintf("  round %d: p99 ÷ one durable commit at one client (pgbench, insert + update of a task row)", i+1),
			"%.2f ms ÷ %.2f = %.1f", p99, commit, p99/commit)
	}
}

// openReviews starts n executions of the one-review flow and gives their reviews once all are open.
func openReviews(b *testing.B, r *engineRun, flow string, n int) []string {
	for i := 0; i < n; i++ {
		if _, err := r.start(flow); err != nil {
			b.Fatal(err)
		}
	}
	var own []string
	for deadline := time.Now().Add(30 * time.Second); len(own) < n; time.Sleep(5 * time.Millisecond) {
		own = own[:0]
		if err := r.env.DB.Select(&own, `SELECT r.id FROM human_review_tasks r JOIN flow_executions x ON x.id = r.flow_execution_id
			WHERE x.flow_id = $1 AND r.status = 'pending'`, flow); err != nil {
			b.Fatal(err)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d reviews open after 30 s, want %d", len(own), n)
		}
	}
	return own
}

// completeAtOnce completes the reviews, each from its own goroutine at the same moment, and gives each
// request's time in ms, sorted, and the time until the last answered.
func completeAtOnce(b *testing.B, c client, reviews []string) ([]float64, time.Duration) {
	paths := make([]string, len(reviews))
	for i, id := range reviews {
		paths[i] = "/api/human-review-tasks/" + id + "/complete"
	}
	return atOnce(b, c, "POST", paths, []byte(`{"review_result": true, "reviewed_output": {"text": "ok"}}`))
}

// atOnce sends one request to each path, each from its own goroutine at the same moment, and gives each
// request's time in ms, sorted, and the time until the last answered.
func atOnce(b *testing.B, c client, method string, paths []string, body []byte) ([]float64, time.Duration) {
	took := make([]float64, len(paths))
	var wg sync.WaitGroup
	began := time.Now()
	for i, path := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			var payload any
			if body != nil {
				payload = body
			}
			st, out, err := c.do(method, path, payload)
			if err != nil || st != http.StatusOK {
				b.Errorf("%s %s: %d %v %s", method, path, st, err, out)
			}
			took[i] = bench.Ms(time.Since(t0))
		}()
	}
	wg.Wait()
	all := time.Since(began)
	sort.Float64s(took)
	return took, all
}

// floors reports what 100 requests arriving at once cost this machine when they write nothing: reads of
// the completed reviews (authentication and one small query each), and the liveness probe (neither).
// No completion can answer sooner than the reads, however it writes.
func floors(b *testing.B, c client, reviews []string) {
	reads := make([]string, len(reviews))
	probes := make([]string, len(reviews))
	for i, id := range reviews {
		reads[i], probes[i] = "/api/human-review-tasks/"+id, "/health/liveness"
	}
	for _, f := range []struct {
		name  string
		paths []string
	}{{"100 reads of a review at once (the floor under a completion)", reads}, {"100 liveness probes at once", probes}} {
		atOnce(b, c, "GET", f.paths, nil) // connections warm, as the completions' are
		took, all := atOnce(b, c, "GET", f.paths, nil)
		report(b, f.name, "p50 %.2f ms  p99 %.2f ms  (all in %.0f ms)", took[len(took)/2], took[len(took)*99/100], bench.Ms(all))
	}
}
