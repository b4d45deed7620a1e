package run

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// fakes are executors whose outcome a test scripts per task name: an output, an error, or a park. Every
// other task echoes its input. They run under the built-in type names so definitions validate.
type fakes struct {
	mu   sync.Mutex
	out  map[string]any
	fail map[string]error
	park map[string]bool
	runs map[string]int
	// wait is how long a task's attempts take before their outcome.
	wait map[string]time.Duration
}

func newFakes() *fakes {
	return &fakes{out: map[string]any{}, fail: map[string]error{}, park: map[string]bool{}, runs: map[string]int{},
		wait: map[string]time.Duration{}}
}

func (f *fakes) run(_ context.Context, in executors.Input) (executors.Result, error) {
	f.mu.Lock()
	wait := f.wait[in.Task.Name]
	f.mu.Unlock()
	time.Sleep(wait)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs[in.Task.Name]++
	if err := f.fail[in.Task.Name]; err != nil {
		return executors.Result{}, err
	}
	if f.park[in.Task.Name] {
		return executors.Result{Park: true, AwaitingInput: true}, nil
	}
	if out, ok := f.out[in.Task.Name]; ok {
		return executors.Result{Output: out}, nil
	}
	return executors.Result{Output: in.Data}, nil
}

// set is the executors for the types the tests' flows use.
func (f *fakes) set() executors.Set {
	fn := executors.Func(f.run)
	return executors.Set{"transform": fn, "condition": fn, "human_review": fn, "delay": fn}
}

// ran is how many attempts of a task ran.
func (f *fakes) ran(task string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs[task]
}

var errBoom = errors.New("boom")
