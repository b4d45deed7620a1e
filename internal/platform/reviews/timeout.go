package reviews

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
)

// timeoutArgs is the job scheduled at a review's deadline.
type timeoutArgs struct {
	Review uuid.UUID `json:"review"`
}

func (timeoutArgs) Kind() string { return "human_review_timeout" }

// timeoutWorker applies on_timeout to a review still open at its deadline. River delivers the job at
// least once; the review's status under its row lock makes a repeated delivery, or one that arrives
// after a person completed the review, do nothing.
type timeoutWorker struct {
	river.WorkerDefaults[timeoutArgs]
	s *Service
}

func (w *timeoutWorker) Work(ctx context.Context, job *river.Job[timeoutArgs]) error {
	return dbx.WithTx(ctx, w.s.db, func(tx *sqlx.Tx) error {
		r, err := byID(ctx, tx, job.Args.Review)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the execution, and its reviews, are gone
		}
		if err != nil {
			return err
		}
		// A deleted execution waits for nothing: its assignments were cancelled with it.
		if r.Status == "completed" || r.ExecutionDeleted || r.OnTimeout == nil {
			return nil
		}
		return w.s.expire(ctx, tx, r)
	})
}

// expire ends an open review as its on_timeout says: approved or rejected with the reviewed content as
// it was, or failing the attempt that waits for it, for good (a retry would only ask the same people
// again).
func (s *Service) expire(ctx context.Context, tx *sqlx.Tx, r reviewRow) error {
	v := verdict{actor: "system"}
	switch *r.OnTimeout {
	case "approve", "reject":
		var meta struct {
			Source json.RawMessage `json:"source_output"`
		}
		if len(r.Metadata) > 0 {
			if err := json.Unmarshal(r.Metadata, &meta); err != nil {
				return err
			}
		}
		ok := *r.OnTimeout == "approve"
		v.result, v.output = &ok, asObject(meta.Source)
	default:
		v.cause = executors.Permanent(fmt.Errorf("the review was not completed before its timeout (%s)",
			r.TimeoutAt.UTC().Format("2006-01-02T15:04:05Z")))
	}
	return s.decide(ctx, tx, r, v)
}
