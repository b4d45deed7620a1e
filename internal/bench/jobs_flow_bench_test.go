package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// reviewedFlowBody is transform → human_review → transform, the shape of a labeling app.
const reviewedFlowBody = `{"display_name": "labeling", "definition": {"version": 1, "tasks": [
	{"name": "prepare", "type": "transform", "parameters": {"expression": "{text: .text}"}},
	{"name": "check", "type": "human_review"},
	{"name": "finish", "type": "transform", "parameters": {"expression": "{label: .label}"}}],
	"edges": [{"source": "prepare", "target": "check"}, {"source": "check", "target": "finish"}]}}`

// BenchmarkJobsOnFlows runs once (-benchtime=1x): submissions to an app bound to a 3-task flow with a
// human step, beside pgbench's plain INSERT of a job in the same run; then automatic labelers answering
// through the label route while jobs are submitted, with the jobs completed per second and the time
// from submission to completion.
func BenchmarkJobsOnFlows(b *testing.B) {
	ctx := context.Background()
	env := serverEnv(b)
	org := env.Org(b)
	admin := env.KeyCaller(b, org, auth.RoleOrgAdmin)
	if err := credits.Grant(ctx, env.DB, org, 1_000_000_000); err != nil {
		b.Fatal(err)
	}
	transport := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	c := client{t: b, http: &http.Client{Transport: transport}, base: env.URL, token: admin.Token}
	flow := c.createFlow([]byte(reviewedFlowBody))
	app := newApp(b, env, org, "labeling")
	if _, err := env.DB.Exec(`UPDATE apps SET api_id = $2 WHERE id = $1`, app, flow); err != nil {
		b.Fatal(err)
	}
	appPath := "/v1/apps/" + app.String()
	post := c.expect(201)
	body := map[string]any{"input": map[string]any{"text": "hello"}}
	submit := func(int) error { return post("POST", appPath+"/jobs", body) }

	// Submissions and pgbench take turns, as in BenchmarkV1.
	bench.Run(clients, warmUp, submit)
	var all bench.Result
	var pgTx, pgFlowTx float64
	flowScript := flowBoundScript(org.String(), app.String(), flow)
	stmts := newStatements(b, env.DB)
	for round := 0; round < rounds; round++ {
		before := stmts.read()
		res := bench.Run(clients, roundTime, submit)
		if after := stmts.read(); round == 0 && after != nil {
			report(b, "statements a submission sends PostgreSQL (pg_stat_statements, first round)", "%.1f",
				float64(calls(before, after))/float64(res.Requests))
			stmts.report("  where the database's time went in that round", before, after)
		}
		all = all.Merge(res)
		pgTx += pgbench(b, testkit.DSN(b, env.DB), org, app, roundTime) * roundTime.Seconds()
		pgFlowTx += pgbenchScript(b, testkit.DSN(b, env.DB), flowScript, clients, roundTime) * roundTime.Seconds()
	}
	pg, pgFlow := pgTx/(rounds*roundTime.Seconds()), pgFlowTx/(rounds*roundTime.Seconds())
	reportLoad(b, "submission to an app bound to a 3-task flow with a human step, 16 clients", all)
	report(b, "  same INSERT of a job through pgbench (16 clients)", "%.0f tx/s", pg)
	report(b, "  submission / pgbench", "%.2f", all.PerSecond()/pg)
	report(b, "  job, execution and first attempt in one transaction through pgbench (16 clients)", "%.0f tx/s", pgFlow)
	report(b, "  submission / that", "%.2f", all.PerSecond()/pgFlow)
	// Every row such a submission leaves, in one statement: what is left when no statement is spent on
	// anything but writing, one submission a transaction and four.
	for _, k := range []int{1, 4} {
		rows := pgbenchScript(b, testkit.DSN(b, env.DB), flowRowsScript(org.String(), app.String(), flow, k), clients, roundTime) * float64(k)
		report(b, fmt.Sprintf("  its rows in one statement, %d a transaction, through pgbench", k), "%.0f submissions/s (submission / that %.2f)",
			rows, all.PerSecond()/rows)
	}

	// The same submissions when the flow's first task is an outside worker's: the server only starts
	// the execution (job, credit, execution, tasks and first attempt in one transaction) and runs nothing,
	// which shows what the submission itself costs apart from the tasks it sets going.
	outside := c.createFlow([]byte(strings.Replace(reviewedFlowBody,
		`{"name": "prepare", "type": "transform", "parameters": {"expression": "{text: .text}"}}`,
		`{"name": "prepare", "type": "external"}`, 1)))
	app = newApp(b, env, org, "outside")
	if _, err := env.DB.Exec(`UPDATE apps SET api_id = $2 WHERE id = $1`, app, outside); err != nil {
		b.Fatal(err)
	}
	startOnly := func(int) error { return post("POST", "/v1/apps/"+app.String()+"/jobs", body) }
	bench.Run(clients, warmUp, startOnly)
	starts := bench.Run(clients, roundTime, startOnly)
	pgStart := pgbench(b, testkit.DSN(b, env.DB), org, app, roundTime)
	reportLoad(b, "  the same, first task an outside worker's (only the start)", starts)
	report(b, "  start only / pgbench (same run)", "%.0f / %.0f = %.2f", starts.PerSecond(), pgStart, starts.PerSecond()/pgStart)

	// Labelers, on a second app of the same flow: each is a LABELER of the app taking the next job and
	// answering it.
	app = newApp(b, env, org, "labeled")
	if _, err := env.DB.Exec(`UPDATE apps SET api_id = $2 WHERE id = $1`, app, flow); err != nil {
		b.Fatal(err)
	}
	appPath = "/v1/apps/" + app.String()
	const labelers, jobs = 8, 2000
	var tokens []string
	for range labelers {
		u := env.User(b, org, auth.RoleAppUser)
		env.ChangeAccess(b, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'LABELER')`, app, u.UserID, org)
		tokens = append(tokens, u.Token)
	}
	var since time.Time
	if err := env.DB.Get(&since, `SELECT now()`); err != nil {
		b.Fatal(err)
	}
	begin := time.Now()
	var submitted atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < clients-labelers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for submitted.Add(1) <= jobs {
				if err := submit(0); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	for _, tok := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			label(b, client{t: b, http: c.http, base: env.URL, token: tok}, appPath, stop)
		}()
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var done int
		if err := env.DB.Get(&done, `SELECT count(*) FROM jobs WHERE app_id = $1 AND created_at >= $2 AND status = 'COMPLETED'`, app, since); err != nil {
			b.Fatal(err)
		}
		if done >= jobs || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(begin)
	close(stop)
	wg.Wait()
	var e2e []float64
	if err := env.DB.Select(&e2e, `SELECT extract(epoch FROM completed_at - created_at) * 1000 FROM jobs
		WHERE app_id = $1 AND created_at >= $2 AND status = 'COMPLETED' ORDER BY 1`, app, since); err != nil || len(e2e) < jobs {
		b.Fatalf("%d of %d jobs completed (%v)", len(e2e), jobs, err)
	}
	report(b, "2,000 jobs submitted by 8 clients and labeled by 8 automatic labelers", "%.1f s: %.0f jobs completed/s", took.Seconds(), jobs/took.Seconds())
	report(b, "  submission to completion (through the label route)", "p50 %.0f ms  p99 %.0f ms", e2e[len(e2e)/2], e2e[len(e2e)*99/100])
}

// label takes the next job through the label route and answers it, until stop.
func label(b *testing.B, c client, appPath string, stop <-chan struct{}) {
	answer := map[string]any{"response": map[string]any{"label": "greeting"}}
	for {
		select {
		case <-stop:
			return
		default:
		}
		st, out, err := c.do("GET", appPath+"/label", nil)
		if err != nil {
			b.Error(err)
			return
		}
		if st == http.StatusNoContent {
			// Nothing to label yet: ask again shortly, as a labeling client would, rather than keep the
			// server busy answering 204s.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		var got struct {
			Job struct{ ID int64 } `json:"job"`
		}
		if st != http.StatusOK || json.Unmarshal(out, &got) != nil {
			b.Errorf("label: %d %s", st, out)
			return
		}
		st, out, err = c.do("PUT", appPath+"/jobs/"+strconv.FormatInt(got.Job.ID, 10)+"/response", answer)
		if err != nil || st != http.StatusOK {
			b.Errorf("response: %d %v %s", st, err, out)
			return
		}
	}
}

// flowBoundScript is the fewest durable writes a submission to an app bound to a flow needs: the job, its
// execution and the execution's first attempt, in one transaction.
func flowBoundScript(org, app, flow string) string {
	return fmt.Sprintf(`BEGIN;
WITH j AS (INSERT INTO jobs (organization_id, app_id, status, processing_state, input, tags, priority)
    VALUES ('%[1]s', '%[2]s', 'SCHEDULED', 'AWAITING_HUMAN', '{"text": "hello"}', '{}', 5) RETURNING id),
  x AS (INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, input, run_number, job_app_id, job_id)
    SELECT '%[1]s', '%[3]s', 1, 'queued', '{"text": "hello"}', 0, '%[2]s', j.id FROM j RETURNING id)
INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input)
  SELECT '%[1]s', x.id, 'prepare', 0, 'queued', '{"text": "hello"}' FROM x;
COMMIT;
`, org, app, flow)
}
