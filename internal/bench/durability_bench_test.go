package bench_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkDurability runs once (-benchtime=1x), with real server processes: 1,000 executions killed
// mid-way with SIGKILL and finished by a restarted server, each task exactly once; then the same work
// on one server and on two sharing the database.
func BenchmarkDurability(b *testing.B) {
	bin := testkit.BuildServer(b)
	const n = 1000

	db := testkit.DB(b)
	dsn := testkit.DSN(b, db)
	token := testkit.SeedCaller(b, db)
	addr := testkit.FreePort(b)
	first := testkit.Serve(b, bin, dsn, addr)
	// A delay in the middle keeps executions unfinished at any moment.
	startAll(b, first.URL, token, fanFlow(`{"name": "pause", "type": "delay", "parameters": {"seconds": 2}}`), n, first)
	time.Sleep(time.Second)
	var unfinished int
	_ = db.Get(&unfinished, `SELECT count(*) FROM flow_executions WHERE status <> 'completed'`)
	first.Kill()
	restart := time.Now()
	second := testkit.Serve(b, bin, dsn, addr)
	finish(b, db, n, 5*time.Minute)
	report(b, "kill -9 with 1,000 executions running, then a restart", "%d unfinished at the kill; all done %.1f s after the restart",
		unfinished, time.Since(restart).Seconds())
	var twice int
	if err := db.Get(&twice, `SELECT count(*) FROM (SELECT 1 FROM task_executions WHERE status = 'completed'
		GROUP BY flow_execution_id, task_name HAVING count(*) > 1) d`); err != nil || twice != 0 {
		b.Fatalf("%d tasks completed more than once (%v)", twice, err)
	}
	report(b, "  tasks completed more than once", "%d", twice)
	second.Kill() // each run below has the machine to itself

	// Tasks that only use the CPU: on this machine PostgreSQL and the servers share two cores, which one
	// server already keeps busy.
	one := onServers(b, bin, 1, fanFlow(""), n)
	two := onServers(b, bin, 2, fanFlow(""), n)
	report(b, "1,000 fan-out executions (10,000 tasks) on 1 server", "%.1f s", one.Seconds())
	report(b, "  on 2 servers", "%.1f s: %.2f of the time", two.Seconds(), two.Seconds()/one.Seconds())

	// Tasks that wait on an outside service (100 ms each): each server runs LOOPWORK_TASK_WORKERS of
	// them at once, so a second server runs as many more.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(100 * time.Millisecond)
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer slow.Close()
	allow := "LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32"
	one = onServers(b, bin, 1, waitingFlow(slow.URL), 400, allow)
	two = onServers(b, bin, 2, waitingFlow(slow.URL), 400, allow)
	report(b, "400 fan-out executions of 8 outside calls of 100 ms (3,200 calls) on 1 server", "%.1f s", one.Seconds())
	report(b, "  on 2 servers", "%.1f s: %.2f of the time", two.Seconds(), two.Seconds()/one.Seconds())
}

// onServers starts n executions of flow on a new database served by that many server processes, and
// returns how long they took to complete.
func onServers(b *testing.B, bin string, servers int, flow string, n int, env ...string) time.Duration {
	db := testkit.DB(b)
	dsn := testkit.DSN(b, db)
	token := testkit.SeedCaller(b, db)
	var procs []*testkit.Process
	for i := 0; i < servers; i++ {
		procs = append(procs, testkit.Serve(b, bin, dsn, testkit.FreePort(b), env...))
	}
	defer func() {
		for _, p := range procs {
			p.Kill()
		}
	}()
	start := time.Now()
	startAll(b, procs[0].URL, token, flow, n, procs...)
	finish(b, db, n, 5*time.Minute)
	return time.Since(start)
}

// waitingFlow is a root, eight http_request tasks to url, and a join.
func waitingFlow(url string) string {
	tasks := `{"name": "root", "type": "transform", "parameters": {"expression": "."}},
		{"name": "join", "type": "transform", "parameters": {"expression": "."}}`
	edges := ``
	for i := 0; i < 8; i++ {
		tasks += fmt.Sprintf(`, {"name": "w%d", "type": "http_request", "parameters": {"url": %q}}`, i, url)
		if i > 0 {
			edges += ", "
		}
		edges += fmt.Sprintf(`{"source": "root", "target": "w%d"}, {"source": "w%d", "target": "join"}`, i, i)
	}
	return `{"display_name": "waiting", "definition": {"version": 1, "tasks": [` + tasks + `], "edges": [` + edges + `]}}`
}

// fanFlow is a root, eight parallel tasks (one of them extra, when given) and a join.
func fanFlow(extra string) string {
	tasks := `{"name": "root", "type": "transform", "parameters": {"expression": "."}},
		{"name": "join", "type": "transform", "parameters": {"expression": "."}}`
	edges := ``
	for i := 0; i < 8; i++ {
		tasks += fmt.Sprintf(`, {"name": "w%d", "type": "transform", "parameters": {"expression": "{value: %d}"}}`, i, i)
		if i > 0 {
			edges += ", "
		}
		edges += fmt.Sprintf(`{"source": "root", "target": "w%d"}, {"source": "w%d", "target": "join"}`, i, i)
	}
	if extra != "" {
		tasks += ", " + extra
		edges += `, {"source": "root", "target": "pause"}, {"source": "pause", "target": "join"}`
	}
	return `{"display_name": "fan", "definition": {"version": 1, "tasks": [` + tasks + `], "edges": [` + edges + `]}}`
}

// startAll creates the flow and starts n executions of it with 16 clients, spread over the servers as a
// load balancer would; a failure shows the logs of the servers.
func startAll(b *testing.B, base, token, flow string, n int, servers ...*testkit.Process) {
	var f struct{ ID string }
	testkit.Call(b, base, token, "POST", "/api/flows", json.RawMessage(flow), &f)
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	errs := make(chan error, clients)
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := client{t: b, http: &http.Client{}, base: base, token: token}
			if len(servers) > 0 {
				c.base = servers[w%len(servers)].URL
			}
			for i := range next {
				st, body, err := c.do("POST", "/api/flow-executions", []byte(fmt.Sprintf(`{"flow_id": %q, "input": {"n": %d}}`, f.ID, i)))
				if err != nil || st != http.StatusCreated {
					errs <- fmt.Errorf("start: %d %v %s", st, err, body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		for _, p := range servers {
			b.Log(p.Logs())
		}
		b.Fatal(err)
	}
}

// finish waits until all n executions completed.
func finish(b *testing.B, db *sqlx.DB, n int, within time.Duration) {
	deadline := time.Now().Add(within)
	for {
		var done int
		if err := db.Get(&done, `SELECT count(*) FROM flow_executions WHERE status = 'completed'`); err != nil {
			b.Fatal(err)
		}
		if done == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d executions completed after %s", done, n, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkCancelKill9 runs once (-benchtime=1x): a 202 cancel of 1,000,000 jobs whose executions wait
// in the engine, its server killed with SIGKILL mid-way and started again; every job and its execution
// end canceled, once.
func BenchmarkCancelKill9(b *testing.B) {
	took, atKill := bench.CancelThroughKill9(b, 1_000_000)
	report(b, "cancel of 1,000,000 jobs with executions, kill -9 mid-way", "%d canceled at the kill; all, once, %.0f s after the request",
		atKill, took.Seconds())
}
