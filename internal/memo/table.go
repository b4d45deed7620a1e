package memo

import (
	"sync"
	"time"
)

// Table memoises values by key for one generation of a Bus, each for at most ttl (a bound on
// staleness should a notification ever be lost in a way the bus cannot see) and at most max of them
// (when full it starts over, which a working set of callers and apps never reaches in practice).
// Errors are never memoised, so a key that does not exist costs a query each time, as it should:
// unknown keys are what a caller probing credentials sends.
type Table[K comparable, V any] struct {
	bus *Bus
	ttl time.Duration
	max int

	mu  sync.RWMutex
	gen uint64
	m   map[K]entry[V]
}

type entry[V any] struct {
	v  V
	at time.Time
}

// NewTable returns a table on bus; with a nil bus it never memoises anything.
func NewTable[K comparable, V any](bus *Bus, ttl time.Duration, max int) *Table[K, V] {
	return &Table[K, V]{bus: bus, ttl: ttl, max: max, m: map[K]entry[V]{}}
}

// Load returns k's value: the memoised one when it was loaded in the bus's current generation less
// than ttl ago, else load's, which is memoised when nothing changed while it ran.
func (t *Table[K, V]) Load(k K, load func() (V, error)) (V, error) {
	gen, live := t.bus.current()
	if live {
		t.mu.RLock()
		e, ok := t.m[k]
		fresh := ok && t.gen == gen && time.Since(e.at) < t.ttl
		t.mu.RUnlock()
		if fresh {
			return e.v, nil
		}
	}
	at := time.Now()
	v, err := load()
	if err != nil || !live {
		return v, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// A change heard while load ran may have come after load read the row: keep nothing then.
	if now, stillLive := t.bus.current(); !stillLive || now != gen {
		return v, nil
	}
	if t.gen != gen || len(t.m) >= t.max {
		t.m = make(map[K]entry[V], len(t.m))
		t.gen = gen
	}
	t.m[k] = entry[V]{v: v, at: at}
	return v, nil
}

// len is the number of values memoised in the current generation (for tests).
func (t *Table[K, V]) len() int {
	gen, _ := t.bus.current()
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.gen != gen {
		return 0
	}
	return len(t.m)
}
