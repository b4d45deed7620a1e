package run

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Run numbers come from the flow's counter row (flows.executions_started), the one row every start of a
// flow shares. Taken inside the start's transaction, its lock is held until that transaction commits,
// and concurrent starts of one flow queue behind each other on it: in BenchmarkStarts, pgbench wrote the
// rows of a start at a third to a half of its rate once the counter's update was added last, 16 clients
// on one flow. TakeRunNumber instead takes numbers in blocks, in a statement of its own: a flow
// started often takes a block of up to maxBlock numbers at a time and hands them out in this process, a
// flow started now and then takes one at a time. Numbers still grow with creation time on one server; a
// block that a restart or a failed start leaves unused is a gap, as deleted executions are.
//
// The statement that takes a block commits without waiting for its WAL to reach disk
// (synchronous_commit off), so the row's lock is held for microseconds rather than for a flush. That
// loses nothing: a start that uses a number commits after the block was taken, and its own commit waits
// for the WAL up to its commit record, which is past the block's. A block lost in a crash was used by no
// start that committed, and is taken again.
const maxBlock = 64

// refillWindow: a block used up sooner than this after it was taken makes the next one twice as large.
const refillWindow = time.Second

type block struct {
	mu        sync.Mutex
	next, end int64 // numbers next..end are free
	size      int64
	at        time.Time
}

type numberBlocks struct {
	mu    sync.Mutex
	flows map[uuid.UUID]*block
}

var numbers = numberBlocks{flows: make(map[uuid.UUID]*block)}

func (n *numberBlocks) of(flow uuid.UUID) *block {
	n.mu.Lock()
	defer n.mu.Unlock()
	b := n.flows[flow]
	if b == nil {
		if len(n.flows) >= 10_000 {
			n.forgetIdle()
		}
		b = &block{size: 1}
		n.flows[flow] = b
	}
	return b
}

// forgetIdle drops the blocks of flows not started for a minute; their unused numbers become gaps.
func (n *numberBlocks) forgetIdle() {
	for id, b := range n.flows {
		if b.mu.TryLock() {
			if time.Since(b.at) > time.Minute {
				delete(n.flows, id)
			}
			b.mu.Unlock()
		}
	}
}

// TakeRunNumber takes the next run number of a flow, outside any transaction: db is a pool, never a
// transaction a caller holds open. Callers check the flow is theirs first. It returns 0 when the flow
// does not exist.
func TakeRunNumber(ctx context.Context, db *sqlx.DB, flow uuid.UUID) (int, error) {
	b := numbers.of(flow)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == 0 || b.next > b.end {
		switch {
		case b.next != 0 && time.Since(b.at) < refillWindow:
			b.size = min(b.size*2, maxBlock)
		case time.Since(b.at) >= refillWindow:
			b.size = 1
		}
		var end int64
		err := db.GetContext(ctx, &end, `UPDATE flows SET executions_started = executions_started + $2
			WHERE id = $1 AND set_config('synchronous_commit', 'off', true) = 'off'
			RETURNING executions_started`, flow, b.size)
		if dbx.IsNoRows(err) {
			return 0, nil // no such flow: the start finds none either, and says so
		}
		if err != nil {
			return 0, err
		}
		b.next, b.end, b.at = end-b.size+1, end, time.Now()
	}
	n := b.next
	b.next++
	return int(n), nil
}

// RunNumber takes a flow's next run number for a start that has made sure, in its open transaction,
// that it may start the flow, so that a refused start takes none. It goes through the engine's pool for
// numbers (Deps.Numbers), never the one the start's transaction came from: a start that waits there for
// a connection never waits for one its peers hold while they wait for it. It returns 0 when the engine
// has no such pool; Create then takes the number in the start's transaction.
func (e *Engine) RunNumber(ctx context.Context, flow uuid.UUID) (int, error) {
	if e.numbers == nil {
		return 0, nil
	}
	return TakeRunNumber(ctx, e.numbers, flow)
}
