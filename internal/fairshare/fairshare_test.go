package fairshare

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// granted reports whether w has been handed a slot, without waiting.
func granted(w *waiter) bool {
	select {
	case <-w.ready:
		return true
	default:
		return false
	}
}

func TestShareCapsOneKey(t *testing.T) {
	s := New[string](4, 2)
	if !s.TryAcquire("a") || !s.TryAcquire("a") {
		t.Fatal("a could not take its share of two")
	}
	if s.TryAcquire("a") {
		t.Fatal("a took a third slot beyond its share")
	}
	if !s.TryAcquire("b") || !s.TryAcquire("b") {
		t.Fatal("b could not take the two slots a left")
	}
	if s.TryAcquire("c") {
		t.Fatal("c took a slot although all four are held")
	}
}

func TestFirstComeFirstServedWithinAKey(t *testing.T) {
	s := New[string](1, 1)
	s.TryAcquire("a")
	w1, w2 := s.enqueue("a"), s.enqueue("a")
	if s.TryAcquire("a") {
		t.Fatal("TryAcquire jumped the queue of its own key")
	}
	s.Release("a")
	if !granted(w1) || granted(w2) {
		t.Fatalf("after one release: first %v, second %v; want the first only", granted(w1), granted(w2))
	}
	s.Release("a")
	if !granted(w2) {
		t.Fatal("the second waiter was not served after the first")
	}
}

// TestLaterKeyServedBeforeAFloodingOne: a key that queued many waiters does not make a key that
// arrives after them wait behind them.
func TestLaterKeyServedBeforeAFloodingOne(t *testing.T) {
	s := New[string](2, 2)
	s.TryAcquire("a")
	s.TryAcquire("a")
	var flood []*waiter
	for range 100 {
		flood = append(flood, s.enqueue("a"))
	}
	b := s.enqueue("b")
	s.Release("a")
	if !granted(b) || granted(flood[0]) {
		t.Fatalf("the freed slot went to a's waiter (%v), not b's (%v)", granted(flood[0]), granted(b))
	}
	s.Release("a")
	if !granted(flood[0]) || granted(flood[1]) {
		t.Fatal("once b held as many as a, a's next slot did not go to a's oldest waiter")
	}
}

// TestRoundRobinBetweenKeys: with one slot, keys with waiters take turns; each is served once before
// any is served twice.
func TestRoundRobinBetweenKeys(t *testing.T) {
	s := New[string](1, 1)
	s.TryAcquire("x")
	order := []string{"a", "b", "a", "c", "a", "b"}
	ws := make([]*waiter, len(order))
	for i, k := range order {
		ws[i] = s.enqueue(k)
	}
	var got []string
	holder := "x"
	for range order {
		s.Release(holder)
		for i, w := range ws {
			if w != nil && granted(w) {
				holder = order[i]
				got = append(got, holder)
				ws[i] = nil
			}
		}
	}
	want := []string{"a", "b", "c", "a", "b", "a"}
	if len(got) != len(want) {
		t.Fatalf("served %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("served %v, want %v", got, want)
		}
	}
}

func TestAKeyAtItsShareDoesNotBlockOthers(t *testing.T) {
	s := New[string](3, 1)
	s.TryAcquire("a")
	a2 := s.enqueue("a")
	s.TryAcquire("b")
	if c := s.enqueue("c"); c != nil || granted(a2) {
		t.Fatal("c did not get the free slot at once, or a's waiter went beyond a's share")
	}
}

func TestCancelledWaiterLeavesTheQueue(t *testing.T) {
	s := New[string](1, 1)
	s.TryAcquire("a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Acquire(ctx, "b") }()
	for s.Waiting("b") == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Acquire returned %v, want context.Canceled", err)
	}
	if s.Waiting("b") != 0 || s.Held("b") != 0 {
		t.Fatal("a cancelled waiter stayed queued or holds a slot")
	}
	s.Release("a")
	if len(s.keys) != 0 || s.used != 0 {
		t.Fatalf("%d keys and %d slots left after everything was given back", len(s.keys), s.used)
	}
}

// TestCancelAfterGrantGivesTheSlotOn: a waiter whose context ended just as it was served hands the
// slot to the next waiter instead of leaking it.
func TestCancelAfterGrantGivesTheSlotOn(t *testing.T) {
	s := New[string](1, 1)
	s.TryAcquire("a")
	b, c := s.enqueue("b"), s.enqueue("c")
	s.Release("a")
	if !granted(b) {
		t.Fatal("b was not served")
	}
	s.cancel("b", b)
	if !granted(c) || s.Held("b") != 0 {
		t.Fatal("the slot of a cancelled, served waiter did not go on to the next")
	}
}

func TestAcquireWaitsForItsTurn(t *testing.T) {
	s := New[string](1, 1)
	if err := s.Acquire(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- s.Acquire(context.Background(), "b") }()
	for s.Waiting("b") == 0 {
		runtime.Gosched()
	}
	s.Release("a")
	if err := <-done; err != nil || s.Held("b") != 1 {
		t.Fatalf("Acquire returned %v and b holds %d", err, s.Held("b"))
	}
}

func TestReleaseOfNothingPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("releasing a slot never taken did not panic")
		}
	}()
	New[string](1, 1).Release("a")
}

// TestBoundsHoldUnderContention: many callers of a few keys never hold more than the size in all or
// more than the share per key (run with -race).
func TestBoundsHoldUnderContention(t *testing.T) {
	s := New[int](4, 2)
	var total atomic.Int32
	per := make([]atomic.Int32, 3)
	var over atomic.Bool
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := i % 3
			for range 50 {
				if err := s.Acquire(context.Background(), k); err != nil {
					over.Store(true)
					return
				}
				if total.Add(1) > 4 || per[k].Add(1) > 2 {
					over.Store(true)
				}
				runtime.Gosched()
				per[k].Add(-1)
				total.Add(-1)
				s.Release(k)
			}
		}()
	}
	wg.Wait()
	if over.Load() {
		t.Fatal("a bound was passed")
	}
	if len(s.keys) != 0 || s.used != 0 {
		t.Fatalf("%d keys and %d slots left", len(s.keys), s.used)
	}
}
