package taskexecutions

import (
	"context"
	"encoding/json"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/state"
	"github.com/loopwork/loopwork/internal/httpx"
)

// report is a request as the statements take it: the JSON fields as text, nil when not sent.
type report struct {
	platformapi.CreateTaskExecutionRequest
	input, output, error *string
	actor                string
}

// sent is the JSON text of a field, nil when it was omitted.
func sent(raw json.RawMessage) *string {
	if len(raw) == 0 {
		return nil
	}
	s := string(raw)
	return &s
}

// isNull is whether a field was omitted or sent as null, which count the same for output and error.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// newReport checks what the schema cannot say: output goes only with completed, error only with failed.
func newReport(p *auth.Principal, b platformapi.CreateTaskExecutionRequest) (report, error) {
	r := report{CreateTaskExecutionRequest: b, input: sent(b.Input), actor: p.Actor()}
	var items []httpx.ValidationItem
	if !isNull(b.Output) {
		if b.Status != platformapi.TaskExecutionStatusCompleted {
			items = append(items, httpx.ValidationItem{Loc: []any{"body", "output"}, Type: "output_not_allowed",
				Msg: "output is accepted only with status completed, not with " + string(b.Status)})
		}
		r.output = sent(b.Output)
	}
	if b.Error != nil {
		if b.Status != platformapi.TaskExecutionStatusFailed {
			items = append(items, httpx.ValidationItem{Loc: []any{"body", "error"}, Type: "error_not_allowed",
				Msg: "error is accepted only with status failed, not with " + string(b.Status)})
		}
		text, err := json.Marshal(b.Error)
		if err != nil {
			return r, err
		}
		s := string(text)
		r.error = &s
	}
	if items != nil {
		return r, httpx.InvalidItems(items)
	}
	return r, nil
}

// RecordTaskExecution creates or updates one attempt through the engine (see run.Engine.ReportOutside),
// which refuses reports on attempts it runs itself or that people complete through a review.
func (s *Service) RecordTaskExecution(ctx context.Context, req platformapi.RecordTaskExecutionRequestObject) (platformapi.RecordTaskExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := newReport(p, *req.Body)
	if err != nil {
		return nil, err
	}
	var out row
	created := false
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		// The execution is read, not locked: the engine orders the report with its own work on the
		// attempt by the attempt's row lock, which it takes before an execution's.
		h, err := visible(ctx, tx, p, r.FlowExecutionId)
		if err != nil {
			return err
		}
		if h.Deleted {
			return errDeleted
		}
		key := run.AttemptKey{Execution: r.FlowExecutionId, Task: r.TaskName, Idx: r.TaskExecutionIdx}
		if err := heldByReview(ctx, tx, key); err != nil {
			return err
		}
		o := run.Outside{Org: h.Org, Key: key, Status: state.Attempt(r.Status), Input: r.input, Output: r.output,
			Error: r.error, Actor: r.actor}
		if r.Error != nil {
			o.Message = r.Error.Message
		}
		created, err = s.engine.ReportOutside(ctx, tx, o, run.Into{Columns: columns, Dest: &out})
		return refused(key, err)
	})
	if err != nil {
		return nil, err
	}
	api, err := withTags(ctx, s.db, out.Execution, []row{out})
	if err != nil {
		return nil, err
	}
	if created {
		return platformapi.RecordTaskExecution201JSONResponse(api[0]), nil
	}
	return platformapi.RecordTaskExecution200JSONResponse(api[0]), nil
}
