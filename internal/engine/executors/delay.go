package executors

import (
	"context"
	"time"
)

// Delay waits the number of seconds of its parameters, then passes its input on as its output; what it
// waited is the attempt's detail. It holds nothing while it waits: the engine records when the wait ends
// and schedules a durable job for then, so a restart does not lose it.
func Delay(now func() time.Time) Executor {
	return Func(func(_ context.Context, in Input) (Result, error) {
		secs, _ := in.Task.Parameters["seconds"].(float64)
		d := time.Duration(secs * float64(time.Second))
		return Result{WaitUntil: now().Add(d), Output: passOn(in), Detail: map[string]any{"waited_seconds": secs}}, nil
	})
}
