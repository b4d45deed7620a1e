package reviews

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// params are the parameters of a human_review task (see the task type in internal/engine/tasks).
type params struct {
	Instructions      *string     `json:"instructions"`
	AssignedUsers     []uuid.UUID `json:"assigned_users"`
	ReviewOf          string      `json:"review_of"`
	RequiredApprovals *int        `json:"required_approvals"`
	TimeoutSeconds    *int        `json:"timeout_seconds"`
	OnTimeout         string      `json:"on_timeout"`
}

// Executor is the human_review executor: it opens a review task, with its assignments and timeout job,
// in the transaction that records the attempt, and parks the attempt with the execution in
// awaiting_input. Completing (or expiring) the review finishes the attempt through the engine's Report.
func (s *Service) Executor() executors.Executor {
	return executors.Mark(executors.Func(func(_ context.Context, in executors.Input) (executors.Result, error) {
		raw, err := json.Marshal(in.Task.Parameters)
		if err != nil {
			return executors.Result{}, executors.Permanent(err)
		}
		var p params
		if err := json.Unmarshal(raw, &p); err != nil {
			return executors.Result{}, executors.Permanent(fmt.Errorf("parameters: %w", err))
		}
		input, err := json.Marshal(in.Data)
		if err != nil {
			return executors.Result{}, executors.Permanent(err)
		}
		open := func(ctx context.Context, tx *sqlx.Tx) error {
			o, err := s.opening(ctx, tx, in, p, input)
			if err != nil {
				return err
			}
			if _, err := s.open(ctx, tx, o); err != nil {
				if !isSQL(err) {
					return executors.Permanent(err)
				}
				return err
			}
			return nil
		}
		return executors.Result{InTx: open, Park: true, AwaitingInput: true, Together: s.together(in, p, input)}, nil
	}), executors.Records)
}

// opening describes the review of one attempt: what is reviewed is the latest completed output of
// review_of, or else the task's input, whose source is its only predecessor when it has one.
func (s *Service) opening(ctx context.Context, tx *sqlx.Tx, in executors.Input, p params, input json.RawMessage) (opening, error) {
	o := describe(in, p, input)
	// The engine says which flow version runs and the task's predecessors; a caller that does not is
	// answered from the execution and the version's edges.
	if in.Version == 0 {
		if err := tx.QueryRowxContext(ctx, `SELECT flow_id, flow_version FROM flow_executions WHERE id = $1`,
			in.Execution).Scan(&o.flow, &o.version); err != nil {
			return o, err
		}
	}
	preds := in.Preds
	if p.ReviewOf == "" && in.Version == 0 {
		if err := tx.SelectContext(ctx, &preds, `SELECT DISTINCT e->>'source' FROM flow_versions v,
			jsonb_array_elements(coalesce(v.definition->'edges', '[]')) e
			WHERE v.flow_id = $1 AND v.version = $2 AND e->>'target' = $3`, o.flow, o.version, in.Task.Name); err != nil {
			return o, err
		}
	}
	source := sourceOf(p, preds)
	if source == "" {
		return o, nil
	}
	var last struct {
		Idx    int             `db:"task_execution_idx"`
		Output json.RawMessage `db:"output"`
	}
	err := tx.GetContext(ctx, &last, `SELECT task_execution_idx, coalesce(output, 'null') AS output FROM task_executions
		WHERE flow_execution_id = $1 AND task_name = $2 AND status = 'completed'
		ORDER BY task_execution_idx DESC LIMIT 1`, in.Execution, source)
	if errors.Is(err, sql.ErrNoRows) {
		return o, noSource(p, source)
	}
	if err != nil {
		return o, err
	}
	return reviewed(o, p, source, last.Idx, last.Output), nil
}

// describe is the review of one attempt before its source is read: the attempt's own input, reviewed
// where it stands.
func describe(in executors.Input, p params, input json.RawMessage) opening {
	o := opening{org: in.Org, execution: in.Execution, target: in.Task.Name, targetIdx: in.Idx, source: in.Task.Name,
		sourceIdx: in.Idx, content: input, instructions: p.Instructions, users: p.AssignedUsers, required: 1,
		holds: true, actor: "system", flow: in.Flow, version: in.Version}
	if p.RequiredApprovals != nil {
		o.required = *p.RequiredApprovals
	}
	if p.TimeoutSeconds != nil {
		at := time.Now().Add(time.Duration(*p.TimeoutSeconds) * time.Second)
		outcome := p.OnTimeout
		if outcome == "" {
			outcome = "fail"
		}
		o.timeoutAt, o.onTimeout = &at, &outcome
	}
	return o
}

// sourceOf is the task whose latest completed attempt a review reads: review_of, else the task's only
// predecessor ("" when it has none or several: the review shows its own input).
func sourceOf(p params, preds []string) string {
	if p.ReviewOf != "" {
		return p.ReviewOf
	}
	if len(preds) != 1 {
		return ""
	}
	return preds[0]
}

// noSource is what a source without a completed attempt means: an error when review_of named it, else
// the review shows the task's own input (nil).
func noSource(p params, source string) error {
	if p.ReviewOf != "" {
		return executors.Permanent(fmt.Errorf("task %q, named by review_of, has no completed attempt to review", source))
	}
	return nil
}

// reviewed is o reviewing attempt idx of source, which produced output: review_of reviews that output,
// a predecessor's review the task's input (which that output became).
func reviewed(o opening, p params, source string, idx int, output json.RawMessage) opening {
	o.source, o.sourceIdx = source, idx
	if p.ReviewOf != "" {
		o.content = output
	}
	return o
}

// isSQL reports whether err came from the database (and is worth a retry) rather than from the
// review's own rules.
func isSQL(err error) bool {
	var (
		o errOpen
		t tooFew
		b badUsers
	)
	return !errors.As(err, &o) && !errors.As(err, &t) && !errors.As(err, &b)
}
