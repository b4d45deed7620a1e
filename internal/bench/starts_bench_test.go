package bench_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// BenchmarkStarts runs once (-benchtime=1x): executions started through POST /api/flow-executions by 16
// clients, against a pgbench script in the same run that writes the rows one start must write, in one
// transaction. The flow is the fan-out of BenchmarkEngine (root, 8 parallel tasks, join) with an outside
// worker's first task, so the server only starts executions and runs nothing: the figure is the start
// alone. The two loads take turns, as in BenchmarkV1.
func BenchmarkStarts(b *testing.B) {
	r := newEngineRun(b, "starts")
	const width = 8
	def := strings.Replace(fanDefinition(width), `{"name": "root", "type": "transform", "parameters": {"expression": "."}}`,
		`{"name": "root", "type": "external"}`, 1)
	flow := r.c.createFlow([]byte(`{"display_name": "starts", "definition": ` + def + `}`))
	start := func(int) error { _, err := r.start(flow); return err }

	script := startScript(r.org.String(), flow, width)
	dsn := testkit.DSN(b, r.env.DB)
	stmts := newStatements(b, r.env.DB)
	bench.Run(clients, warmUp, start)
	var all bench.Result
	var pgTx float64
	for round := 0; round < rounds; round++ {
		before := stmts.read()
		res := bench.Run(clients, roundTime, start)
		after := stmts.read()
		if round == 0 && after != nil {
			report(b, "statements a start sends PostgreSQL (pg_stat_statements, first round)", "%.1f",
				float64(calls(before, after))/float64(res.Requests))
		}
		all = all.Merge(res)
		tps := pgbenchScript(b, dsn, script, clients, roundTime)
		pgTx += tps * roundTime.Seconds()
		report(b, fmt.Sprintf("round %d: starts / pgbench", round+1), "%.0f / %.0f = %.2f", res.PerSecond(), tps, res.PerSecond()/tps)
	}
	pg := pgTx / (rounds * roundTime).Seconds()
	reportLoad(b, "starts of a 10-task fan-out, first task an outside worker's (HTTP, 16 clients)", all)
	report(b, "  the rows of one start in one transaction through pgbench (16 clients)", "%.0f tx/s", pg)
	report(b, "  starts / that", "%.2f", all.PerSecond()/pg)
	// The run number is the one row every start of a flow writes: what the same script costs with it
	// shows how much of the difference is that row's lock, held from the update to the commit.
	numbered := strings.Replace(script, "COMMIT;", "UPDATE flows SET executions_started = executions_started + 1 WHERE id = '"+flow+"';\nCOMMIT;", 1)
	report(b, "  the same with the flow's run number taken last, as a start does", "%.0f tx/s", pgbenchScript(b, dsn, numbered, clients, roundTime))
	b.ReportMetric(all.PerSecond(), "starts/s")
	b.ReportMetric(pg, "pgbench-tps")
	b.ReportMetric(all.PerSecond()/pg, "ratio")
}

// startScript writes what one start of the fan-out flow must: the balance read that admits it (a start
// consumes no credit; its tasks' work is billed as it runs), the execution, its tasks' rows and the
// first task's attempt. Fewer statements than the server sends, and no run number: that is the
// baseline's advantage, not a row the start could do without, so the script leaves it out as the goal
// does.
func startScript(org, flow string, width int) string {
	names, waits := []string{"root"}, []string{"0"}
	for i := 0; i < width; i++ {
		names, waits = append(names, fmt.Sprintf("w%d", i)), append(waits, "1")
	}
	names, waits = append(names, "join"), append(waits, fmt.Sprint(width))
	return fmt.Sprintf(`BEGIN;
SELECT coalesce(sum(granted), 0) - coalesce(sum(consumed), 0) FROM credit_balances WHERE organization_id = '%[1]s';
WITH x AS (INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, input, run_number, tasks_left)
    VALUES ('%[1]s', '%[2]s', 1, 'queued', '{"value": 1}', 0, %[5]d) RETURNING id),
  t AS (INSERT INTO execution_tasks (flow_execution_id, task_name, organization_id, state, waiting_on, held, attempts)
    SELECT x.id, n, '%[1]s', CASE WHEN w = 0 THEN 'ready' ELSE 'waiting' END, w, w = 0, CASE WHEN w = 0 THEN 1 ELSE 0 END
    FROM x, unnest('{%[3]s}'::text[], '{%[4]s}'::int[]) AS t (n, w))
INSERT INTO task_executions (organization_id, flow_execution_id, task_name, task_execution_idx, status, input)
  SELECT '%[1]s', x.id, 'root', 0, 'queued', '{"value": 1}' FROM x;
COMMIT;
`, org, flow, strings.Join(names, ","), strings.Join(waits, ","), len(names))
}

// keepAlive is an HTTP client that keeps a connection for each of the bench's clients, as any load tool
// does: Go's default keeps two per host, so 16 clients would open a new connection for most requests.
func keepAlive() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}}
}
