package run

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Run numbers come from the flow's counter row (flows.executions_started), the one row every start of a
// flow shares. Taken inside the start's transaction, its lock is held until that transaction commits,
// and concurrent starts of one flow queue behind each other on it. TakeRunNumber instead takes numbers
// in blocks, in a statement of their own, before the start's transaction begins: a flow started often
// takes a block of up to maxBlock numbers at a time and hands them out in this process, a flow started
// now and then takes one at a time. Numbers still grow with creation time on one server; a block that a
// restart or a failed start leaves unused is a gap, as deleted executions are.
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

// TakeRunNumber takes the next run number of a flow of the caller's organization, outside any
// transaction (db must not be one that a caller holds open). Callers check the flow is theirs first.
// It returns 0 when the flow does not exist.
func TakeRunNumber(ctx context.Context, db dbx.DBTX, flow uuid.UUID) (int, error) {
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
		err := db.GetContext(ctx, &end, `UPDATE flows SET executions_started = executions_started + $2 WHERE id = $1
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
