// Package replicas_test runs loopwork as a deployment does: several server processes on one database
// behind a load balancer.
package replicas_test

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// pausedFlow is a root, four parallel tasks, a two-second delay beside them and a join: the delay's end
// is a River job that any replica may take, so executions cross processes.
const pausedFlow = `{"display_name": "paused", "definition": {"version": 1, "tasks": [
	{"name": "root", "type": "transform", "parameters": {"expression": "."}},
	{"name": "w0", "type": "transform", "parameters": {"expression": "{value: 0}"}},
	{"name": "w1", "type": "transform", "parameters": {"expression": "{value: 1}"}},
	{"name": "w2", "type": "transform", "parameters": {"expression": "{value: 2}"}},
	{"name": "w3", "type": "transform", "parameters": {"expression": "{value: 3}"}},
	{"name": "pause", "type": "delay", "parameters": {"seconds": 2}},
	{"name": "join", "type": "transform", "parameters": {"expression": "."}}],
	"edges": [{"source": "root", "target": "w0"}, {"source": "root", "target": "w1"},
	{"source": "root", "target": "w2"}, {"source": "root", "target": "w3"}, {"source": "root", "target": "pause"},
	{"source": "w0", "target": "join"}, {"source": "w1", "target": "join"}, {"source": "w2", "target": "join"},
	{"source": "w3", "target": "join"}, {"source": "pause", "target": "join"}]}}`

// TestThreeReplicas drives three server processes on one database through a round-robin front with
// the load script's traffic plus flow executions. Mid-run one process is taken out of rotation and
// killed with SIGKILL while it holds background work. No request may fail, the background work must
// have run on every process, and nothing may be lost: every submitted job is stored once, every
// execution completes, every task completes exactly once.
func TestThreeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes")
	}
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	dsn := testkit.DSN(t, db)
	key := testkit.SeedCaller(t, db)
	var procs []*testkit.Process
	var urls []string
	for i := 0; i < 3; i++ {
		p := testkit.Serve(t, bin, dsn, testkit.FreePort(t))
		procs, urls = append(procs, p), append(urls, p.URL)
	}
	front := testkit.NewFront(t, urls...)
	app, err := bench.NewApp(front.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	var flow struct{ ID string }
	testkit.Call(t, front.URL, key, "POST", "/api/flows", json.RawMessage(pausedFlow), &flow)

	mix := &bench.Mix{Base: front.URL, Key: key, App: app, Flow: flow.ID, Every: 8,
		HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	var mu sync.Mutex
	var failures []string
	killed := make(chan time.Time, 1)
	go func() {
		// The kill comes once River's work has reached all three processes (by 8 s at the latest, which
		// spread then reports), so that what the test asks of the time before it does not hang on how
		// quickly a loaded machine starts the third process's producers.
		begin := time.Now()
		for time.Since(begin) < 8*time.Second && (time.Since(begin) < 3*time.Second || workedBy(db) < 3) {
			time.Sleep(100 * time.Millisecond)
		}
		front.Drain(t, 2)
		procs[2].Kill()
		killed <- time.Now()
	}()
	res := bench.Run(8, 12*time.Second, func(c int) error {
		err := mix.Do(c)
		if err != nil {
			mu.Lock()
			failures = append(failures, err.Error())
			mu.Unlock()
		}
		return err
	})
	killedAt := <-killed
	t.Logf("%d requests in %.1f s (%.0f/s), p50 %s p99 %s; per process %v; %d jobs, %d executions",
		res.Requests, res.Elapsed.Seconds(), res.PerSecond(), res.P50, res.P99, front.Served(),
		mix.Submitted.Load(), mix.Started.Load())
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed; first: %v", len(failures), res.Requests, failures[:min(5, len(failures))])
	}
	for i, n := range front.Served() {
		if n == 0 {
			t.Errorf("process %d answered no request", i)
		}
	}

	waitCompleted(t, db, int(mix.Started.Load()), 90*time.Second)
	var jobs int
	if err := db.Get(&jobs, `SELECT count(*) FROM jobs WHERE app_id = $1`, app); err != nil {
		t.Fatal(err)
	}
	if jobs != int(mix.Submitted.Load()) {
		t.Errorf("%d jobs stored, %d answered 201", jobs, mix.Submitted.Load())
	}
	var twice int
	if err := db.Get(&twice, `SELECT count(*) FROM (SELECT 1 FROM task_executions WHERE status = 'completed'
		GROUP BY flow_execution_id, task_name HAVING count(*) > 1) d`); err != nil || twice != 0 {
		t.Errorf("%d tasks completed more than once (%v)", twice, err)
	}
	spread(t, db, killedAt)
}
