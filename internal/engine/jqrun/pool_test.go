package jqrun

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func limitOf(t *testing.T, err error) *LimitError {
	t.Helper()
	var l *LimitError
	if !errors.As(err, &l) {
		t.Fatalf("got %v, want a limit error", err)
	}
	return l
}

func TestFirstResult(t *testing.T) {
	p := newPool(t, Config{Size: 1})
	ctx := context.Background()
	for _, c := range []struct {
		expr string
		in   any
		want string
	}{
		{`{total: (.items | map(.price) | add)}`, map[string]any{"items": []any{map[string]any{"price": 2}, map[string]any{"price": 3.5}}}, `map[total:5.5]`},
		{`.[]`, []any{"a", "b"}, `a`},
		{`empty`, nil, `<nil>`},
		{`halt`, 1, `<nil>`},
		{`$ENV | length`, nil, `0`},
	} {
		v, err := p.Eval(ctx, c.expr, c.in, time.Second)
		if err != nil || fmt.Sprint(v) != c.want {
			t.Errorf("%s: got %v, %v; want %s", c.expr, v, err, c.want)
		}
	}
	for _, expr := range []string{`error("no")`, `.a.b.c(`, `"x" | halt_error`} {
		var e *EvalError
		if _, err := p.Eval(ctx, expr, map[string]any{"a": 1}, time.Second); !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an evaluation error", expr, err)
		}
	}
}

func TestDeadlineKillsAndReplaces(t *testing.T) {
	p := newPool(t, Config{Size: 1})
	ctx := context.Background()
	t0 := time.Now()
	_, err := p.Eval(ctx, `reduce range(1e18) as $i (0; .) | . == 0`, nil, 300*time.Millisecond)
	if l := limitOf(t, err); l.Limit != "time" || l.Time != 300*time.Millisecond {
		t.Fatalf("got %+v", l)
	}
	if took := time.Since(t0); took > 2*time.Second {
		t.Fatalf("the evaluation was stopped after %s", took)
	}
	if got := err.Error(); got != "the jq program passed its time limit of 300ms" {
		t.Fatalf("message %q", got)
	}
	// The one slot is free again, and a new child answers.
	if v, err := p.Eval(ctx, `. + 1`, 1, time.Second); err != nil || v != float64(2) {
		t.Fatalf("after the kill: %v, %v", v, err)
	}
}

func TestContextStopsEvaluation(t *testing.T) {
	p := newPool(t, Config{Size: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Eval(ctx, `last(range(1e18))`, nil, 30*time.Second)
		done <- err
	}()
	time.AfterFunc(100*time.Millisecond, cancel)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling did not stop the evaluation")
	}
}

func TestMemoryBound(t *testing.T) {
	p := newPool(t, Config{Size: 1, Memory: 64 << 20})
	for _, expr := range []string{`[range(1e9)] | length`, `def f: [., .]; 1 | f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f|f | tostring | length`} {
		_, err := p.Eval(context.Background(), expr, nil, 20*time.Second)
		if l := limitOf(t, err); l.Limit != "memory" || l.Bytes != 64<<20 {
			t.Fatalf("%s: got %+v", expr, l)
		}
		if got := err.Error(); got != "the jq program passed its memory limit of 64 MB" {
			t.Fatalf("message %q", got)
		}
	}
	if v, err := p.Eval(context.Background(), `[range(1000)] | length`, nil, time.Second); err != nil || v != float64(1000) {
		t.Fatalf("after the kill: %v, %v", v, err)
	}
}

func TestResultSizeBound(t *testing.T) {
	p := newPool(t, Config{Size: 1, MaxResult: 1000})
	_, err := p.Eval(context.Background(), `[range(1000)]`, nil, time.Second)
	if l := limitOf(t, err); l.Limit != "result size" || l.Bytes != 1000 {
		t.Fatalf("got %+v", l)
	}
	if v, err := p.Eval(context.Background(), `[range(10)] | add`, nil, time.Second); err != nil || v != float64(45) {
		t.Fatalf("after a large result: %v, %v", v, err)
	}
}

// TestConcurrency runs more evaluations at once than the pool has children, with one that never ends
// among them: the others all get their own answers, and never more children run than the pool's size.
func TestConcurrency(t *testing.T) {
	p := newPool(t, Config{Size: 3})
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := p.Eval(ctx, `reduce range(1e18) as $i (0; .)`, nil, 2*time.Second)
		limitOf(t, err)
	}()
	errs := make(chan error, 8*25)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				n := g*100 + i
				v, err := p.Eval(ctx, `{n: (.n * 2)}`, map[string]any{"n": n}, 5*time.Second)
				if err != nil {
					errs <- err
					continue
				}
				if got := v.(map[string]any)["n"]; got != float64(2*n) {
					errs <- fmt.Errorf("%d: got %v", n, got)
				}
				if busy := len(p.slots); busy > 3 {
					errs <- fmt.Errorf("%d evaluations at once", busy)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
