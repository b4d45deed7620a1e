package bench_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

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

	var took [3]time.Duration
	for servers := 1; servers <= 2; servers++ {
		db := testkit.DB(b)
		dsn := testkit.DSN(b, db)
		token := testkit.SeedCaller(b, db)
		var procs []*testkit.Process
		for i := 0; i < servers; i++ {
			procs = append(procs, testkit.Serve(b, bin, dsn, testkit.FreePort(b)))
		}
		start := time.Now()
		startAll(b, procs[0].URL, token, fanFlow(""), n, procs...)
		finish(b, db, n, 5*time.Minute)
		took[servers] = time.Since(start)
		for _, p := range procs {
			p.Kill()
		}
		report(b, fmt.Sprintf("1,000 fan-out executions (10,000 tasks) on %d server(s)", servers), "%.1f s", took[servers].Seconds())
	}
	report(b, "  two servers ÷ one", "%.2f of the time", took[2].Seconds()/took[1].Seconds())
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

// startAll creates the flow and starts n executions of it with 16 clients; a failure shows the logs of
// the servers.
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
