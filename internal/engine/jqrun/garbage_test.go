package jqrun

import (
	"context"
	"testing"
	"time"
)

// TestGarbageIsNotMemory: a program that runs on while making only garbage ends at its deadline, never of
// memory: the runtime's 64 MB reservations of address space fit beside the budget (arenaSlack). Without
// the slack about one such evaluation in twenty died of "memory" on a 64 MB budget.
func TestGarbageIsNotMemory(t *testing.T) {
	p := newPool(t, Config{Size: 2, Memory: 64 << 20})
	for i := 0; i < 15; i++ {
		_, err := p.Eval(context.Background(), `reduce range(1e18) as $i (0; .) | . == 0`, nil, 150*time.Millisecond)
		if l := limitOf(t, err); l.Limit != "time" {
			t.Fatalf("evaluation %d: %v, want the time limit", i+1, err)
		}
	}
}
