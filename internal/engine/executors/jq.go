package executors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// JQ evaluates the jq programs of tasks (transforms, conditions, templates) in the pool of bounded child
// processes, never in the server's own: a program that runs past its deadline or its memory bound fails its
// attempt with a jqrun.LimitError.
type JQ struct {
	// Pool is where the programs run (nil: jqrun.Shared).
	Pool *jqrun.Pool
	// Template is the deadline of each expression of a template (0: DefaultTemplateTime).
	Template time.Duration
	// Max caps the deadline of a transform or condition, which is otherwise the task's own timeout
	// (0: the pool's MaxTime).
	Max time.Duration
}

// DefaultTemplateTime is the deadline of a template's expression unless JQ.Template says otherwise.
const DefaultTemplateTime = time.Second

// Transform reshapes its input with the jq expression of its parameters; the output is the
// expression's first result, kept as the JSON the evaluator sent (it is stored as JSON).
func Transform(q JQ) Executor {
	return Mark(Func(func(ctx context.Context, in Input) (Result, error) {
		raw, err := q.task(ctx, in, "expression")
		if err != nil || raw == nil {
			return Result{}, err
		}
		return Result{Output: raw}, nil
	}), Computes)
}

// Condition evaluates the jq expression of its parameters on its input. Its output is its input, passed on
// to the branch the result chose; the result is the attempt's detail, {"result": bool}, which decides the
// outgoing edges (each follows the result its branch names, true by default).
func Condition(q JQ) Executor {
	return Mark(Func(func(ctx context.Context, in Input) (Result, error) {
		raw, err := q.task(ctx, in, "expression")
		if err != nil {
			return Result{}, err
		}
		var v any
		if raw != nil {
			if err := json.Unmarshal(raw, &v); err != nil {
				return Result{}, err
			}
		}
		b, ok := v.(bool)
		if !ok {
			return Result{}, Permanent(fmt.Errorf("the condition gave %s, not true or false", describe(v)))
		}
		return Result{Output: passOn(in), Detail: map[string]any{"result": b}}, nil
	}), Computes)
}

// task runs the expression in the named parameter on the attempt's input and returns its first result
// as JSON (nil for null), within the task's timeout capped by q.Max.
func (q JQ) task(ctx context.Context, in Input, param string) (json.RawMessage, error) {
	expr, _ := in.Task.Parameters[param].(string)
	pool, err := q.pool()
	if err != nil {
		return nil, err
	}
	limit := q.Max
	if limit <= 0 {
		limit = pool.Config().MaxTime
	}
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	input := in.Raw
	if input == nil {
		var err error
		if input, err = json.Marshal(in.Data); err != nil {
			return nil, Permanent(fmt.Errorf("%s: the input is not JSON: %w", param, err))
		}
	}
	v, err := pool.EvalJSON(ctx, expr, input, in.Vars, limit)
	var eval *jqrun.EvalError
	switch {
	case errors.As(err, &eval):
		// The program's own error (error("…") included) is the message, as jq prints it.
		return nil, jqFailure(err)
	case err != nil:
		return nil, jqFailure(fmt.Errorf("%s: %w", param, err))
	}
	return v, nil
}

// template runs one expression of a template on the attempt's input and variables within q.Template.
func (q JQ) template(ctx context.Context, expr string, in Input) (any, error) {
	pool, err := q.pool()
	if err != nil {
		return nil, err
	}
	limit := q.Template
	if limit <= 0 {
		limit = DefaultTemplateTime
	}
	return pool.EvalWith(ctx, expr, in.Data, in.Vars, limit)
}

func (q JQ) pool() (*jqrun.Pool, error) {
	if q.Pool != nil {
		return q.Pool, nil
	}
	return jqrun.Shared()
}

// jqFailure marks what a retry cannot cure: a program that fails on its own fails again on the same
// input, and one that passed a limit would pass it again. A child that stopped for another reason, or
// an attempt whose context ended, may be retried.
func jqFailure(err error) error {
	var e *jqrun.EvalError
	if errors.As(err, &e) || jqrun.IsLimit(err) {
		return Permanent(err)
	}
	return err
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	default:
		return fmt.Sprintf("%v", v)
	}
}

// passOn is the attempt's input as its output, as the JSON it came as when there is some.
func passOn(in Input) any {
	if in.Raw != nil {
		return in.Raw
	}
	return in.Data
}
