package bulk

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/queue"
)

// Rescue gives a new run to the unfinished operations whose worker was lost: no batch has committed for
// silence (a live worker commits one every few seconds) and no run of theirs waits in the queue — the
// process running it was killed, and River would rescue its job only much later. insert queues a run
// (an OperationArgs job) in tx. The new run resumes after the last committed batch; were the old one
// alive after all, the two take turns on the operation's row and no batch is done twice. It returns how
// many got a new run.
func Rescue(ctx context.Context, db *sqlx.DB, silence time.Duration, insert func(ctx context.Context, tx *sql.Tx, id uuid.UUID) error) (int, error) {
	return queue.RescueLost(ctx, db, Heartbeat, silence, insert)
}

// Heartbeat is how an operation's worker proves it alive (see queue.Heartbeat).
var Heartbeat = queue.Heartbeat{Table: "bulk_operations", Kind: OperationArgs{}.Kind()}
