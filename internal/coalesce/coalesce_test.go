package coalesce_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/coalesce"
)

type item struct {
	n       int
	written atomic.Int32
	done    chan struct{}
}

// TestEveryItemOnceInBoundedBatches: items added from many goroutines while the writes are slow are
// each written exactly once, in batches no larger than the size, with no more lanes at once than
// allowed, and they do come together (some batch holds more than one).
func TestEveryItemOnceInBoundedBatches(t *testing.T) {
	const lanes, size, adders, each = 2, 8, 40, 25
	var inFlight, most, largest atomic.Int32
	c := coalesce.New(lanes, size, func(batch []*item) {
		if n := inFlight.Add(1); n > most.Load() {
			most.Store(n)
		}
		if int32(len(batch)) > largest.Load() {
			largest.Store(int32(len(batch)))
		}
		time.Sleep(time.Millisecond)
		for _, it := range batch {
			it.written.Add(1)
			close(it.done)
		}
		inFlight.Add(-1)
	})
	var all []*item
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := 0; a < adders; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				it := &item{n: a*each + i, done: make(chan struct{})}
				mu.Lock()
				all = append(all, it)
				mu.Unlock()
				c.Add(it)
				select {
				case <-it.done:
				case <-time.After(10 * time.Second):
					t.Errorf("item %d not written within 10 s", it.n)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, it := range all {
		if w := it.written.Load(); w != 1 {
			t.Fatalf("item %d written %d times", it.n, w)
		}
	}
	if len(all) != adders*each {
		t.Fatalf("%d items, want %d", len(all), adders*each)
	}
	if most.Load() > lanes {
		t.Fatalf("%d batches at once, allowed %d", most.Load(), lanes)
	}
	if largest.Load() > size || largest.Load() < 2 {
		t.Fatalf("largest batch %d, want 2 to %d", largest.Load(), size)
	}
}

// TestAloneIsABatchOfOne: with nothing else queued an item is written at once, by itself.
func TestAloneIsABatchOfOne(t *testing.T) {
	sizes := make(chan int, 3)
	c := coalesce.New(2, 8, func(batch []*item) {
		sizes <- len(batch)
		for _, it := range batch {
			close(it.done)
		}
	})
	for i := 0; i < 3; i++ {
		it := &item{n: i, done: make(chan struct{})}
		c.Add(it)
		<-it.done
		if n := <-sizes; n != 1 {
			t.Fatalf("item %d written in a batch of %d", i, n)
		}
	}
}
