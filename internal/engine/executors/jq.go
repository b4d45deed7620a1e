package executors

import (
	"context"
	"errors"
	"fmt"

	"github.com/itchyny/gojq"

	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// Transform reshapes its input with the jq expression of its parameters; the output is the
// expression's first result.
func Transform() Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		v, err := jq(ctx, in, "expression")
		if err != nil {
			return Result{}, err
		}
		return Result{Output: v}, nil
	})
}

// Condition evaluates the jq expression of its parameters on its input; the output is {"result": bool}.
// Outgoing edges without a condition of their own hold only when the result is true.
func Condition() Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		v, err := jq(ctx, in, "expression")
		if err != nil {
			return Result{}, err
		}
		b, ok := v.(bool)
		if !ok {
			return Result{}, Permanent(fmt.Errorf("the condition gave %s, not true or false", describe(v)))
		}
		return Result{Output: map[string]any{"result": b}}, nil
	})
}

// jq runs the expression in the named parameter on the attempt's input and returns its first result.
// A failing expression fails the attempt for good: the same input would fail again.
func jq(ctx context.Context, in Input, param string) (any, error) {
	expr, _ := in.Task.Parameters[param].(string)
	code, err := dsl.CompileJQ(expr)
	if err != nil {
		return nil, Permanent(fmt.Errorf("%s: %w", param, err))
	}
	return First(ctx, code, in.Data)
}

// First is the first result of a compiled jq program on v, or null when it yields nothing.
func First(ctx context.Context, code *gojq.Code, v any) (any, error) {
	iter := code.RunWithContext(ctx, v)
	out, ok := iter.Next()
	if !ok {
		return nil, nil
	}
	if err, isErr := out.(error); isErr {
		var halt *gojq.HaltError
		if errors.As(err, &halt) && halt.Value() == nil {
			return nil, nil
		}
		return nil, Permanent(err)
	}
	return out, nil
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
