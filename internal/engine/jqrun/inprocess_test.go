package jqrun

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestInProcessAnswersAsAChild: the benchmark's in-process evaluator gives the children's results and
// errors, so that what it measures beside them is the same work; its deadline holds too.
func TestInProcessAnswersAsAChild(t *testing.T) {
	ctx := context.Background()
	child, here := newPool(t, Config{Size: 1}), newPool(t, Config{InProcess: true, MaxResult: 64})
	for _, c := range []struct {
		expr string
		in   any
	}{
		{`{total: (.items | map(.price) | add)}`, map[string]any{"items": []any{map[string]any{"price": 2}, map[string]any{"price": 3.5}}}},
		{`.[]`, []any{"a", "b"}},
		{`empty`, nil},
		{`halt`, 1},
		{`error("no")`, nil},
		{`.a.b.c(`, nil},
	} {
		want, wantErr := child.Eval(ctx, c.expr, c.in, time.Second)
		got, err := here.Eval(ctx, c.expr, c.in, time.Second)
		if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprintf("%T", err) != fmt.Sprintf("%T", wantErr) {
			t.Errorf("%s: in process %v, %v; in a child %v, %v", c.expr, got, err, want, wantErr)
		}
	}
	begin := time.Now()
	_, err := here.Eval(ctx, `reduce range(1e18) as $i (0; .)`, nil, 100*time.Millisecond)
	if l := limitOf(t, err); l.Limit != "time" || time.Since(begin) > 2*time.Second {
		t.Errorf("an endless program: %v after %s", err, time.Since(begin))
	}
	_, err = here.Eval(ctx, `[range(100)]`, nil, time.Second)
	var l *LimitError
	if !errors.As(err, &l) || l.Limit != "result size" {
		t.Errorf("a result past the bound: %v", err)
	}
}
