// Package fairshare is a counting semaphore shared fairly between keys (organizations): a fixed number
// of slots, a cap on how many of them one key may hold at once (its share), first come first served
// among the waiters of one key, and, whenever a slot frees, a pick between the keys that have waiters
// that favours the key holding the fewest slots, then the one served least recently. A key that floods
// the semaphore therefore holds at most its share, and a key that arrives later is served at the next
// free slot however many waiters the first has queued.
//
// Waiting costs the caller's goroutine only: no goroutine runs per waiter or per key, and a waiter
// whose context ends leaves the queue.
package fairshare

import (
	"context"
	"sync"
)

// Semaphore is a fair semaphore over keys of type K. The zero value is not usable; call New.
type Semaphore[K comparable] struct {
	size, share int

	mu   sync.Mutex
	used int
	keys map[K]*keyState
	// clock orders grants and arrivals: each takes the next tick.
	clock uint64
}

// keyState is what the semaphore knows of a key that holds slots or waits for one; a key with neither
// is forgotten, so the map stays as small as the set of keys with work.
type keyState struct {
	held    int
	waiters []*waiter
	// served is the tick of the key's latest grant (0: never since it was last forgotten).
	served uint64
}

type waiter struct {
	ready   chan struct{}
	arrived uint64
	granted bool
}

// New returns a semaphore of size slots (at least 1) of which one key may hold at most share (at least
// 1, at most size).
func New[K comparable](size, share int) *Semaphore[K] {
	size = max(size, 1)
	share = min(max(share, 1), size)
	return &Semaphore[K]{size: size, share: share, keys: map[K]*keyState{}}
}

// Size is the number of slots; Share is how many of them one key may hold.
func (s *Semaphore[K]) Size() int  { return s.size }
func (s *Semaphore[K]) Share() int { return s.share }

// TryAcquire takes a slot for k if one can be had at once: a slot is free, k holds less than its share,
// and no earlier waiter of k is queued (it would be served first). It never waits.
func (s *Semaphore[K]) TryAcquire(k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.key(k)
	if len(ks.waiters) == 0 && s.eligible(ks) {
		s.grant(ks)
		return true
	}
	s.forget(k, ks)
	return false
}

// Acquire takes a slot for k, waiting for its turn until ctx ends (then it returns ctx's error and holds
// nothing). Each successful Acquire is paired with one Release(k).
func (s *Semaphore[K]) Acquire(ctx context.Context, k K) error {
	w := s.enqueue(k)
	if w == nil {
		return nil
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		s.cancel(k, w)
		return ctx.Err()
	}
}

// Release gives back a slot k holds and hands the free slot to the next waiter, if any.
func (s *Semaphore[K]) Release(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.keys[k]
	if ks == nil || ks.held == 0 {
		panic("fairshare: Release of a key that holds no slot")
	}
	ks.held--
	s.used--
	s.dispatch()
	s.forget(k, ks)
}

// Held and Waiting report how many slots k holds and how many of its callers wait, for metrics and
// tests.
func (s *Semaphore[K]) Held(k K) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.keys[k]; ks != nil {
		return ks.held
	}
	return 0
}

func (s *Semaphore[K]) Waiting(k K) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.keys[k]; ks != nil {
		return len(ks.waiters)
	}
	return 0
}

// enqueue grants k a slot at once (returning nil) or queues a waiter for it.
func (s *Semaphore[K]) enqueue(k K) *waiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.key(k)
	if len(ks.waiters) == 0 && s.eligible(ks) {
		s.grant(ks)
		return nil
	}
	s.clock++
	w := &waiter{ready: make(chan struct{}), arrived: s.clock}
	ks.waiters = append(ks.waiters, w)
	return w
}

// cancel takes w out of k's queue, or gives back the slot it was granted meanwhile.
func (s *Semaphore[K]) cancel(k K, w *waiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks := s.keys[k]
	if w.granted {
		ks.held--
		s.used--
		s.dispatch()
	} else {
		for i, q := range ks.waiters {
			if q == w {
				ks.waiters = append(ks.waiters[:i], ks.waiters[i+1:]...)
				break
			}
		}
	}
	s.forget(k, ks)
}

func (s *Semaphore[K]) key(k K) *keyState {
	ks := s.keys[k]
	if ks == nil {
		ks = &keyState{}
		s.keys[k] = ks
	}
	return ks
}

func (s *Semaphore[K]) forget(k K, ks *keyState) {
	if ks.held == 0 && len(ks.waiters) == 0 {
		delete(s.keys, k)
	}
}

func (s *Semaphore[K]) eligible(ks *keyState) bool { return s.used < s.size && ks.held < s.share }

func (s *Semaphore[K]) grant(ks *keyState) {
	s.clock++
	ks.held++
	ks.served = s.clock
	s.used++
}

// dispatch hands free slots to waiters: each goes to the head waiter of the key, among those with
// waiters and below their share, that holds the fewest slots, then was served least recently, then
// has waited longest. A key at its share keeps its waiters until one of its own slots frees.
func (s *Semaphore[K]) dispatch() {
	for s.used < s.size {
		var best *keyState
		for _, ks := range s.keys {
			if len(ks.waiters) > 0 && ks.held < s.share && (best == nil || before(ks, best)) {
				best = ks
			}
		}
		if best == nil {
			return
		}
		w := best.waiters[0]
		best.waiters[0] = nil
		best.waiters = best.waiters[1:]
		s.grant(best)
		w.granted = true
		close(w.ready)
	}
}

// before orders the keys that could take a free slot; ticks are unique, so the order is total and the
// pick does not depend on the map's iteration order.
func before(a, b *keyState) bool {
	if a.held != b.held {
		return a.held < b.held
	}
	if a.served != b.served {
		return a.served < b.served
	}
	return a.waiters[0].arrived < b.waiters[0].arrived
}
