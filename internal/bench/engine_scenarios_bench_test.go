package bench_test

import (
	"fmt"
	"strings"
	"testing"
)

// chainStatements runs one more 100-task chain on r and reports what its steps sent the database: the
// statements and database time a step, and the statements that took that time.
func (r *engineRun) chainStatements() {
	stmts := newStatements(r.b, r.env.DB)
	before := stmts.read()
	r.chain()
	after := stmts.read()
	perTask(r.b, "100-task chain: ", calls(before, after), dbTime(before, after), 100)
	stmts.report("  where the database's time went in that chain", before, after)
}

// fanOuts runs the fan-out on each server, and pgbench's step beside the first, and reports their
// rates. For the first (the bounded children) it also gives the account the ratio asks for: where the
// machine's cores went during the fan-out and during pgbench's run, what a task and one of pgbench's
// steps cost the database, and the statements the fan-out spent it on.
func fanOuts(b *testing.B, runs []*engineRun) {
	var tps float64
	rates := make([]float64, len(runs))
	for i, r := range runs {
		stmts := newStatements(b, r.env.DB)
		cpu, before := watchCPU(), stmts.read()
		started, took := r.fanOut()
		rates[i] = 10 * fanExecutions / took.Seconds()
		report(b, fmt.Sprintf("1,000 executions of a 10-task fan-out/fan-in, %s: started in", r.name), "%.1f s", started.Seconds())
		report(b, "  all 10,000 tasks done in", "%.1f s: %.0f tasks/s", took.Seconds(), rates[i])
		if i > 0 {
			continue
		}
		report(b, "  where the machine's time went", "%s", cpu.split())
		after := stmts.read()
		perTask(b, "  ", calls(before, after), dbTime(before, after), 10*fanExecutions)
		stmts.report("  where the database's time went", before, after)
		cpu, before = watchCPU(), after
		tps = r.pgbench()
		report(b, "  pgbench's run, where the time went", "%s", cpu.split())
		after = stmts.read()
		perTask(b, "  pgbench's run: ", calls(before, after), dbTime(before, after), int64(tps*5))
	}
	report(b, "baseline: insert + update of a task row per transaction (pgbench, 16 clients)", "%.0f tx/s", tps)
	report(b, "engine tasks/s ÷ baseline steps/s (bounded children)", "%.2f", rates[0]/tps)
	report(b, "fan-out tasks/s, bounded children ÷ in process", "%.2f", rates[0]/rates[1])
}

// chainDefinition is n transform tasks c1 → c2 → … → cn.
func chainDefinition(n int) string {
	var tasks, edges []string
	for i := 1; i <= n; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"name": "c%d", "type": "transform", "parameters": {"expression": "{value: (.value + 1)}"}}`, i))
		if i > 1 {
			edges = append(edges, fmt.Sprintf(`{"source": "c%d", "target": "c%d"}`, i-1, i))
		}
	}
	return `{"version": 1, "tasks": [` + strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}`
}

// varChainDefinition is chainDefinition whose tasks also read the execution's input and the first
// task's output through the variables, as flows that carry their data do.
func varChainDefinition(n int) string {
	var tasks, edges []string
	for i := 1; i <= n; i++ {
		expr := "{value: (.value + 1), first: $input.value, c1: $tasks.c1.value}"
		if i == 1 {
			expr = "{value: (.value + 1), first: $input.value}" // nothing is upstream of the first
		}
		tasks = append(tasks, fmt.Sprintf(`{"name": "c%d", "type": "transform", "parameters": {"expression": %q}}`, i, expr))
		if i > 1 {
			edges = append(edges, fmt.Sprintf(`{"source": "c%d", "target": "c%d"}`, i-1, i))
		}
	}
	return `{"version": 1, "tasks": [` + strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}`
}

// fanDefinition is a root, width parallel tasks, and a join: width + 2 tasks.
func fanDefinition(width int) string {
	tasks := []string{`{"name": "root", "type": "transform", "parameters": {"expression": "."}}`,
		`{"name": "join", "type": "transform", "parameters": {"expression": "[.[] | .value] | add"}}`}
	var edges []string
	for i := 0; i < width; i++ {
		tasks = append(tasks, fmt.Sprintf(`{"name": "w%d", "type": "transform", "parameters": {"expression": "{value: (.value + %d)}"}}`, i, i))
		edges = append(edges, fmt.Sprintf(`{"source": "root", "target": "w%d"}, {"source": "w%d", "target": "join"}`, i, i))
	}
	return `{"version": 1, "tasks": [` + strings.Join(tasks, ",") + `], "edges": [` + strings.Join(edges, ",") + `]}`
}
