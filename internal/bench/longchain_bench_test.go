package bench_test

import "testing"

// BenchmarkLongChain runs once (-benchtime=1x): the 1,000-task chain of BenchmarkEngine alone, with its
// baseline (one durable commit at one client), for a quick look at the chain without the rest.
func BenchmarkLongChain(b *testing.B) {
	r := newEngineRun(b, "bounded children")
	r.chain() // warms the version's plan and the jq children, as BenchmarkEngine's rounds do
	commit := r.commitLatency()
	report(b, "baseline: one durable commit at one client (pgbench, insert + update of a task row)", "%.2f ms", commit)
	r.longChain(commit)
}
