package jqrun

import (
	"context"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// BenchmarkEval is the cost of one evaluation of a chain step's transform in a warm child: the round trip
// over the pipes with the JSON at both ends.
func BenchmarkEval(b *testing.B) {
	p, err := New(Config{Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	in := map[string]any{"value": 1.0}
	for b.Loop() {
		if _, err := p.Eval(context.Background(), `{value: (.value + 1)}`, in, time.Second); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInProcess is the same evaluation in the server's own process, as it ran before the pool.
func BenchmarkInProcess(b *testing.B) {
	in := map[string]any{"value": 1.0}
	for b.Loop() {
		code, err := dsl.CompileJQ(`{value: (.value + 1)}`)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := code.Run(in).Next(); !ok {
			b.Fatal("no result")
		}
	}
}
