package run

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"
)

// taskArgs are the River job of one attempt. Resume marks the job that ends a wait (a delay): the
// attempt then completes with Output.
type taskArgs struct {
	Execution uuid.UUID       `json:"execution"`
	Task      string          `json:"task"`
	Idx       int             `json:"idx"`
	Resume    bool            `json:"resume,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	// Stuck names the job this one stands in for, one that River still counts as running although its
	// process died (see SweepLost); it keeps the stand-in unique.
	Stuck int64 `json:"stuck,omitempty"`
}

func (taskArgs) Kind() string { return "flow_task" }

// attempt is an attempt to create, queued.
type attempt struct {
	task  string
	idx   int
	input json.RawMessage
	// at is when it may start (zero: now); a retry waits for its backoff.
	at time.Time
	// external attempts get no job: an outside worker claims them.
	external bool
}

// enqueue writes queued attempts and inserts their jobs in tx, so they exist exactly when the change
// that made the tasks ready commits.
func (e *Engine) enqueue(ctx context.Context, tx *sqlx.Tx, org, exec uuid.UUID, atts []attempt) error {
	if len(atts) == 0 {
		return nil
	}
	names, idxs, inputs := make([]string, len(atts)), make([]int64, len(atts)), make([]string, len(atts))
	for i, a := range atts {
		names[i], idxs[i], inputs[i] = a.task, int64(a.idx), string(a.input)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO task_executions (organization_id, flow_execution_id, task_name,
		task_execution_idx, status, input) SELECT $1, $2, n, i, 'queued', inp::jsonb
		FROM unnest($3::text[], $4::bigint[], $5::text[]) AS a (n, i, inp)
		ON CONFLICT ON CONSTRAINT task_executions_attempt_key DO NOTHING`,
		org, exec, pq.Array(names), pq.Array(idxs), pq.Array(inputs)); err != nil {
		return err
	}
	params := make([]river.InsertManyParams, 0, len(atts))
	for _, a := range atts {
		if a.external {
			continue
		}
		var opts *river.InsertOpts
		if !a.at.IsZero() {
			opts = &river.InsertOpts{ScheduledAt: a.at}
		}
		params = append(params, river.InsertManyParams{Args: taskArgs{Execution: exec, Task: a.task, Idx: a.idx}, InsertOpts: opts})
	}
	if len(params) == 0 {
		return nil
	}
	_, err := e.queue.InsertManyTx(ctx, tx.Tx, params)
	return err
}
