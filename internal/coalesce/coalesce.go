// Package coalesce writes what concurrent requests ask for together: a request that arrives while
// the database is busy with earlier ones waits in a queue, and the next free lane takes everything
// queued by then (up to a batch's size) and writes it with one statement and one commit. Under no
// load a request is a batch of one and waits for nothing; under load batches grow by themselves,
// and with them what one statement and one commit carry (group commit).
package coalesce

import "sync"

// Coalescer hands queued items to its write function in batches, at most lanes batches at a time.
type Coalescer[T any] struct {
	lanes, size int
	write       func(batch []T)

	mu    sync.Mutex
	queue []T
	busy  int // lanes at work
}

// New returns a Coalescer that runs write on batches of at most size items, with at most lanes
// batches written at a time. write must finish every item of its batch (each item carries its own
// way to answer its request) and must not block on requests that are not in its batch.
func New[T any](lanes, size int, write func(batch []T)) *Coalescer[T] {
	return &Coalescer[T]{lanes: max(lanes, 1), size: max(size, 1), write: write}
}

// Add queues item; a lane writes it soon, on a goroutine of its own. The caller waits for the item's
// answer in whatever way the item carries.
func (c *Coalescer[T]) Add(item T) {
	c.mu.Lock()
	c.queue = append(c.queue, item)
	if c.busy < c.lanes {
		c.busy++
		c.mu.Unlock()
		go c.drain()
		return
	}
	c.mu.Unlock()
}

// drain writes batches until the queue is empty, then frees its lane. An item queued while every
// lane was busy is written by one of them: a lane looks at the queue, under the lock, before it
// stops.
func (c *Coalescer[T]) drain() {
	c.mu.Lock()
	for len(c.queue) > 0 {
		n := min(len(c.queue), c.size)
		batch := make([]T, n)
		copy(batch, c.queue)
		left := copy(c.queue, c.queue[n:])
		clear(c.queue[left:]) // the slots moved from hold no item the queue still keeps alive
		c.queue = c.queue[:left]
		c.mu.Unlock()
		c.write(batch)
		c.mu.Lock()
	}
	c.busy--
	c.mu.Unlock()
}
