package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// engineRun is one server of BenchmarkEngine with an administrator's client.
type engineRun struct {
	b                  *testing.B
	name               string
	env                *testkit.Env
	org                uuid.UUID
	c                  client
	chainFlow, fanFlow string
	// varChainFlow is the chain whose tasks read $input and $tasks besides their input.
	varChainFlow string
}

// fanExecutions is how many executions of the fan-out flow start at once.
const fanExecutions = 1000

func newEngineRun(b *testing.B, name string, opts ...testkit.Option) *engineRun {
	env := serverEnv(b, opts...)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(context.Background(), env.DB, org, 1_000_000); err != nil {
		b.Fatal(err)
	}
	r := &engineRun{b: b, name: name, env: env, org: org, c: client{t: b, http: keepAlive(), base: env.URL, token: admin.Token}}
	newFlow := func(def string) string {
		return r.c.createFlow([]byte(`{"display_name": "bench", "definition": ` + def + `}`))
	}
	r.chainFlow, r.fanFlow = newFlow(chainDefinition(100)), newFlow(fanDefinition(8))
	r.varChainFlow = newFlow(varChainDefinition(100))
	return r
}

func (r *engineRun) start(flow string) (string, error) {
	st, body, err := r.c.do("POST", "/api/flow-executions", []byte(`{"flow_id": "`+flow+`", "input": {"value": 1}}`))
	if err != nil || st != http.StatusCreated {
		return "", fmt.Errorf("start: %d %v %s", st, err, body)
	}
	var x struct{ ID string }
	_ = json.Unmarshal(body, &x)
	return x.ID, nil
}

// waitDone waits until no execution of the server is unfinished.
func (r *engineRun) waitDone(within time.Duration) {
	deadline := time.Now().Add(within)
	for {
		var left int
		if err := r.env.DB.Get(&left, `SELECT count(*) FROM flow_executions WHERE status NOT IN ('completed', 'failed')`); err != nil {
			r.b.Fatal(err)
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.b.Fatalf("%d executions unfinished after %s", left, within)
		}
		// Polled gently: the count is a scan, and the measurement must not take the CPU it measures.
		// The 100-task chain takes hundreds of milliseconds and the fan-out seconds, so 20 ms is
		// well under 5% of either.
		time.Sleep(20 * time.Millisecond)
	}
}

// chain runs one execution of the 100-task chain: its whole time and its steps' times in ms, in order.
func (r *engineRun) chain() (time.Duration, []float64) { return r.chainOf(r.chainFlow) }

// chainOf runs one execution of a 100-task chain flow.
func (r *engineRun) chainOf(flow string) (time.Duration, []float64) {
	id, took := r.runChain(flow)
	return took, r.stepGaps(id)
}

// runChain runs one execution of a chain flow: its id and its whole time.
func (r *engineRun) runChain(flow string) (string, time.Duration) {
	t0 := time.Now()
	id, err := r.start(flow)
	if err != nil {
		r.b.Fatal(err)
	}
	r.waitDone(time.Minute)
	return id, time.Since(t0)
}

// stepGaps are the times of a chain execution's steps in ms, in order.
func (r *engineRun) stepGaps(id string) []float64 {
	var gaps []float64
	// A step is from one task's completion to the next's: the next task's start (the engine's
	// overhead) and its run, a transform that takes microseconds. Its start is stamped in the
	// transaction that completes the previous task, so the time between them is the measure.
	if err := r.env.DB.Select(&gaps, `SELECT extract(epoch FROM n.completed_at - p.completed_at) * 1000 FROM task_executions p
		JOIN task_executions n ON n.flow_execution_id = p.flow_execution_id AND n.task_name = 'c' || (substr(p.task_name, 2)::int + 1)
		WHERE p.flow_execution_id = $1 ORDER BY substr(p.task_name, 2)::int`, id); err != nil {
		r.b.Fatal(err)
	}
	return gaps
}

// fanOut starts the fan-out flow fanExecutions times at once, by 16 clients as a burst of submissions
// would, and waits for all: how long the starts took, and the whole.
func (r *engineRun) fanOut() (started, took time.Duration) {
	begin := time.Now()
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= fanExecutions {
				if _, err := r.start(r.fanFlow); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		r.b.Fatalf("%d executions could not be started", failed.Load())
	}
	started = time.Since(begin)
	r.waitDone(10 * time.Minute)
	return started, time.Since(begin)
}

// pgbench is the baseline: the smallest durable step of a task, on the server's database.
func (r *engineRun) pgbench() float64 {
	var exec string
	if err := r.env.DB.Get(&exec, `SELECT id FROM flow_executions LIMIT 1`); err != nil {
		r.b.Fatal(err)
	}
	return pgbenchScript(r.b, testkit.DSN(r.b, r.env.DB), stepScript(r.org.String(), exec), clients, 5*time.Second)
}

// stepScript is the smallest durable step of a task: insert an attempt and mark it running, in one
// transaction.
func stepScript(org, exec string) string {
	return fmt.Sprintf(`\set idx random(1000, 2000000000)
BEGIN;
INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input)
  VALUES ('%[1]s', '%[2]s', 'bench', :idx, 'queued', '{}') ON CONFLICT DO NOTHING;
UPDATE task_executions SET status = 'running', started_at = now()
  WHERE flow_execution_id = '%[2]s' AND task_name = 'bench' AND task_execution_idx = :idx;
COMMIT;
`, org, exec)
}

// commitLatency is the time of the smallest durable step of a task at one client, in ms: the floor
// under one step of a chain, which waits for its previous step's commit.
func (r *engineRun) commitLatency() float64 {
	var exec string
	if err := r.env.DB.Get(&exec, `SELECT id FROM flow_executions LIMIT 1`); err != nil {
		r.b.Fatal(err)
	}
	tps := pgbenchScript(r.b, testkit.DSN(r.b, r.env.DB), stepScript(r.org.String(), exec), 1, 5*time.Second)
	return 1000 / tps
}

// longChain runs one execution of a 1,000-task chain and reports whether its steps stay flat: the p50 of
// its first and last hundred steps, and its p99, against one durable commit.
func (r *engineRun) longChain(commit float64) {
	flow := r.c.createFlow([]byte(`{"display_name": "long chain", "definition": ` + chainDefinition(1000) + `}`))
	stmts := newStatements(r.b, r.env.DB)
	before := stmts.read()
	id, took := r.runChain(flow)
	after := stmts.read()
	gaps := r.stepGaps(id)
	if len(gaps) != 999 {
		r.b.Fatalf("the 1,000-task chain gave %d steps", len(gaps))
	}
	first, last := median(gaps[:100]), median(gaps[len(gaps)-100:])
	p99 := quantile(gaps, 0.99)
	report(r.b, "1,000-task chain: whole execution", "%.1f s", took.Seconds())
	report(r.b, "  a task every (whole ÷ 1,000) ÷ one durable commit", "%.2f ms ÷ %.2f = %.2f",
		bench.Ms(took)/1000, commit, bench.Ms(took)/1000/commit)
	// Steps that only compute run ahead of the transaction of the step before them and are recorded in
	// it (the engine's stepsAhead): those of one transaction share a completion time, so their steps
	// read 0 ms, and the step that ends such a round holds the whole round.
	var commits int
	if err := r.env.DB.Get(&commits, `SELECT count(DISTINCT t.completed_at) FROM task_executions t
		JOIN flow_executions x ON x.id = t.flow_execution_id WHERE x.flow_id = $1`, flow); err != nil {
		r.b.Fatal(err)
	}
	report(r.b, "  transactions that recorded its 1,000 tasks", "%d", commits)
	perTask(r.b, "  ", calls(before, after), dbTime(before, after), 1000)
	stmts.report("  where the database's time went in that chain", before, after)
	report(r.b, "  step p50, first 100 steps / last 100", "%.2f / %.2f ms", first, last)
	report(r.b, "  the first 100 steps took / the last 100", "%.0f / %.0f ms", sum(gaps[:100]), sum(gaps[len(gaps)-100:]))
	report(r.b, "  step p99 ÷ one durable commit", "%.2f ms ÷ %.2f = %.1f", p99, commit, p99/commit)
	var rounds []float64
	for _, g := range gaps {
		if g > 0 {
			rounds = append(rounds, g)
		}
	}
	report(r.b, "  the steps that end a round: p50 / p90 / max ÷ one durable commit", "%.2f / %.2f / %.2f ms ÷ %.2f = %.1f / %.1f / %.1f",
		median(rounds), quantile(rounds, 0.9), quantile(rounds, 1), commit, median(rounds)/commit, quantile(rounds, 0.9)/commit,
		quantile(rounds, 1)/commit)
}

// joinMs lists durations in ms.
func joinMs(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

// sum is the sum of xs.
func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

// median is the middle of xs (the upper middle for an even count).
func median(xs []float64) float64 { return quantile(xs, 0.5) }

// quantile is the value at fraction q of xs sorted, leaving xs in its order.
func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(float64(len(s))*q))]
}
