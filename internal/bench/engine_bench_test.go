package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkEngine runs the engine scenario once (use -benchtime=1x): the per-step overhead of a
// 100-task chain, and 1,000 executions of a 10-task fan-out/fan-in flow at once, beside pgbench doing
// the smallest durable step (insert and update a task row) in the same run.
//
// Tenants' jq runs in a pool of bounded child processes. The scenario runs twice side by side, on two
// servers in this process: one with that pool, one evaluating jq in process as every program ran
// before the pool (jqrun.Config.InProcess). Their chain rounds alternate, so that both meet the same
// machine, and the report gives what the confinement costs a step and the fan-out.
func BenchmarkEngine(b *testing.B) {
	here, err := jqrun.New(jqrun.Config{InProcess: true})
	if err != nil {
		b.Fatal(err)
	}
	runs := []*engineRun{newEngineRun(b, "bounded children"), newEngineRun(b, "in process (before)", testkit.WithJQ(here))}
	// Rounds alternate which server goes first, so that neither always meets the machine as the other
	// left it. A step's time swings by a few tenths of a millisecond from round to round with the machine
	// (far more than the children's round trip of tens of microseconds), so the comparison is the p50
	// over every step of 21 rounds, not any one round's.
	//
	// Steps that only compute run ahead of the transaction of the step before and are recorded in it
	// (the engine's stepsAhead), so most gaps between completions read 0 ms; the comparisons are of a
	// task's time, the whole execution's ÷ 100, which every chain has. The chain whose tasks read
	// variables runs no step ahead: its gaps are steps of a transaction each.
	const rounds = 21
	p50s := make([][]float64, len(runs))
	steps := make([][]float64, len(runs))
	taskMs := make([][]float64, len(runs))
	var varSteps, varTask []float64 // the chain whose tasks read variables, on the bounded children
	for round := 0; round < rounds; round++ {
		took, gaps := runs[0].chainOf(runs[0].varChainFlow)
		varSteps, varTask = append(varSteps, gaps...), append(varTask, bench.Ms(took)/100)
		for k := range runs {
			i := (k + round) % len(runs)
			took, gaps := runs[i].chain()
			p50s[i] = append(p50s[i], median(gaps))
			steps[i] = append(steps[i], gaps...)
			taskMs[i] = append(taskMs[i], bench.Ms(took)/100)
			if round == 0 {
				report(b, fmt.Sprintf("100-task chain, %s, first round: whole execution", runs[i].name), "%.0f ms (%.2f ms a task), step p99 %.2f ms",
					bench.Ms(took), bench.Ms(took)/100, quantile(gaps, 0.99))
			}
		}
	}
	for i, r := range runs {
		report(b, fmt.Sprintf("100-task chain, %s: a task's time (whole ÷ 100) in each round", r.name), "%s ms", joinMs(taskMs[i]))
		report(b, fmt.Sprintf("100-task chain, %s: step p50 of each round", r.name), "%s ms", joinMs(p50s[i]))
	}
	bounded, before := median(taskMs[0]), median(taskMs[1])
	report(b, "100-task chain, a task's time (median of the rounds): bounded children", "%.2f ms (step p50 over %d steps %.2f ms)",
		bounded, len(steps[0]), median(steps[0]))
	report(b, "  in process, as before the pool", "%.2f ms: the children add %+.0f%%", before, 100*(bounded/before-1))
	withVars := median(varTask)
	report(b, "  bounded children, every task reading $input and $tasks.c1 (no step ahead)", "%.2f ms (step p50 %.2f ms): %+.0f%%",
		withVars, median(varSteps), 100*(withVars/bounded-1))
	runs[0].chainStatements()
	commit := runs[0].commitLatency()
	report(b, "baseline: one durable commit at one client (pgbench, insert + update of a task row)", "%.2f ms", commit)
	report(b, "  chain step p50 ÷ that commit", "%.2f", median(steps[0])/commit)
	report(b, "  a chain task's time ÷ that commit", "%.2f (reading variables, no step ahead: %.2f)", bounded/commit, withVars/commit)
	runs[0].longChain(commit)

	fanOuts(b, runs)
}

// BenchmarkOutsideWorker runs once (-benchtime=1x): an outside worker going through a chain of 200
// external tasks — claim, report completed, claim the next — and reports the time from one claim to the
// next, which is the engine's turnaround for outside workers.
func BenchmarkOutsideWorker(b *testing.B) {
	ctx := context.Background()
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, 1000); err != nil {
		b.Fatal(err)
	}
	c := client{t: b, http: &http.Client{}, base: env.URL, token: admin.Token}
	const n = 200
	var tasks, edges []string
	for i := 0; i < n; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"name": "x%d", "type": "external", "parameters": {}}`, i))
		if i > 0 {
			edges = append(edges, fmt.Sprintf(`{"source": "x%d", "target": "x%d"}`, i-1, i))
		}
	}
	flow := c.createFlow([]byte(`{"display_name": "outside", "definition": {"version": 1, "tasks": [` +
		strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}}`))
	st, body, err := c.do("POST", "/api/flow-executions", []byte(`{"flow_id": "`+flow+`", "input": {}}`))
	if err != nil || st != http.StatusCreated {
		b.Fatalf("start: %d %v %s", st, err, body)
	}
	claim := []byte(`{"worker": "bench", "flow_id": "` + flow + `"}`)
	var gaps []time.Duration
	last := time.Time{}
	for done := 0; done < n; {
		st, body, err := c.do("POST", "/api/task-executions/claim", claim)
		if err != nil {
			b.Fatal(err)
		}
		if st == http.StatusNoContent {
			continue // the next attempt is not queued yet
		}
		if st != http.StatusOK {
			b.Fatalf("claim: %d %s", st, body)
		}
		now := time.Now()
		if !last.IsZero() {
			gaps = append(gaps, now.Sub(last))
		}
		var got struct {
			TaskExecution struct {
				FlowExecutionID string `json:"flow_execution_id"`
				TaskName        string `json:"task_name"`
				Idx             int    `json:"task_execution_idx"`
			} `json:"task_execution"`
		}
		_ = json.Unmarshal(body, &got)
		t := got.TaskExecution
		rep := fmt.Sprintf(`{"flow_execution_id": %q, "task_name": %q, "task_execution_idx": %d, "status": "completed", "output": {"ok": true}}`,
			t.FlowExecutionID, t.TaskName, t.Idx)
		if st, body, err := c.do("POST", "/api/task-executions", []byte(rep)); err != nil || st != http.StatusOK {
			b.Fatalf("report: %d %v %s", st, err, body)
		}
		last = now
		done++
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	report(b, "outside worker: claim → report completed → next claim (200 tasks)", "p50 %.2f ms  p99 %.2f ms",
		bench.Ms(gaps[len(gaps)/2]), bench.Ms(gaps[len(gaps)*99/100]))
}

// BenchmarkReviewTurnaround runs once (-benchtime=1x): 30 executions of transform → review →
// transform; each review is completed through the API, and the time from its completion to the start
// of the next task is reported.
func BenchmarkReviewTurnaround(b *testing.B) {
	ctx := context.Background()
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.User(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, 1000); err != nil {
		b.Fatal(err)
	}
	c := client{t: b, http: &http.Client{}, base: env.URL, token: admin.Token}
	def := fmt.Sprintf(`{"display_name": "reviewed", "definition": {"version": 1, "tasks": [
		{"name": "draft", "type": "transform", "parameters": {"expression": "{text: \"hello\"}"}},
		{"name": "check", "type": "human_review", "parameters": {"assigned_users": [%q], "review_of": "draft"}},
		{"name": "after", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "draft", "target": "check"}, {"source": "check", "target": "after"}]}}`, admin.UserID)
	flow := c.createFlow([]byte(def))
	var gaps []float64
	for i := 0; i < 30; i++ {
		st, body, err := c.do("POST", "/api/flow-executions", []byte(`{"flow_id": "`+flow+`", "input": {}}`))
		if err != nil || st != http.StatusCreated {
			b.Fatalf("start: %d %v %s", st, err, body)
		}
		var x struct{ ID string }
		_ = json.Unmarshal(body, &x)
		var review string
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			if err := env.DB.Get(&review, `SELECT id FROM human_review_tasks WHERE flow_execution_id = $1`, x.ID); err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("no review task after 10 s")
			}
		}
		if st, body, err := c.do("POST", "/api/human-review-tasks/"+review+"/complete",
			[]byte(`{"review_result": true, "reviewed_output": {"text": "hello, world"}}`)); err != nil || st != http.StatusOK {
			b.Fatalf("complete: %d %v %s", st, err, body)
		}
		var gap float64
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			err := env.DB.Get(&gap, `SELECT extract(epoch FROM a.started_at - r.completed_at) * 1000 FROM task_executions a
				JOIN human_review_tasks r ON r.flow_execution_id = a.flow_execution_id
				WHERE a.flow_execution_id = $1 AND a.task_name = 'after' AND a.started_at IS NOT NULL`, x.ID)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("the task after the review did not start within 10 s")
			}
		}
		gaps = append(gaps, gap)
	}
	sort.Float64s(gaps)
	report(b, "review completed → next task started (30 executions)", "p50 %.2f ms  p99 %.2f ms", gaps[len(gaps)/2], gaps[len(gaps)-1])
}

// BenchmarkAttemptsPage runs once (-benchtime=1x): a page of 50 of the task executions of an execution
// that has 10,000, read by one client and by 16.
func BenchmarkAttemptsPage(b *testing.B) {
	ctx := context.Background()
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	var exec string
	if err := env.DB.GetContext(ctx, &exec, `
		WITH f AS (INSERT INTO flows (organization_id, executions_started) VALUES ($1, 1) RETURNING id),
		     v AS (INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, valid)
		           SELECT id, 1, $1, 'big', '{"version": 1, "tasks": [], "edges": []}', true FROM f)
		INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		SELECT $1, id, 1, 'running', 1 FROM f RETURNING id`, org); err != nil {
		b.Fatal(err)
	}
	if _, err := env.DB.ExecContext(ctx, `INSERT INTO task_executions (organization_id, flow_execution_id, task_name,
		task_execution_idx, status, input, output, created_at)
		SELECT $1, $2, 'task_' || (g % 1000), g / 1000, 'completed', '{"n": 1}', '{"ok": true}', now() - make_interval(secs => g)
		FROM generate_series(0, 9999) g`, org, exec); err != nil {
		b.Fatal(err)
	}
	_, _ = env.DB.ExecContext(ctx, `VACUUM ANALYZE task_executions`)
	c := client{t: b, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, base: env.URL, token: admin.Token}
	get := c.expect(http.StatusOK)
	for _, n := range []int{1, clients} {
		r := measure(n, 3*time.Second, func(int) error {
			return get("GET", "/api/task-executions?flow_execution_id="+exec+"&limit=50&page=3", nil)
		})
		reportLoad(b, fmt.Sprintf("page of 50 of an execution's 10,000 task executions, %d clients", n), r)
	}
}
