package executors

import (
	"context"

	"github.com/google/uuid"
)

// Attempt names the attempt a context runs, for what an executor calls that must know whose work it
// is: opening a credential checks the right of the user who saved the flow version being run, and that
// version is found through the execution.
type Attempt struct {
	Org       uuid.UUID
	Execution uuid.UUID
	Task      string
}

type attemptKey struct{}

// WithAttempt wraps ex so that the context of each run carries its attempt (AttemptOf).
func WithAttempt(ex Executor) Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		ctx = context.WithValue(ctx, attemptKey{}, Attempt{Org: in.Org, Execution: in.Execution, Task: in.Task.Name})
		return ex.Run(ctx, in)
	})
}

// AttemptOf is the attempt ctx runs; false outside an attempt wrapped by WithAttempt.
func AttemptOf(ctx context.Context) (Attempt, bool) {
	a, ok := ctx.Value(attemptKey{}).(Attempt)
	return a, ok
}

// WithAttempts wraps every executor of the set with WithAttempt.
func (s Set) WithAttempts() Set {
	out := make(Set, len(s))
	for name, ex := range s {
		out[name] = Mark(WithAttempt(ex), KindOf(ex))
	}
	return out
}
