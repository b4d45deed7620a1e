// Package executors holds what runs each task type of a flow. The engine's scheduler hands an executor
// one attempt of one task with its input, and records what it returns; executors know nothing of
// executions, retries or transactions, so the /v1 side and tests can run them alone.
package executors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// Input is one attempt of a task.
type Input struct {
	Org       uuid.UUID
	Execution uuid.UUID
	Task      dsl.Task
	Idx       int
	// Data is the task's input, decoded from JSON (numbers as float64).
	Data any
	// Raw is the same input as the JSON it was decoded from, when the caller has it: the jq executors
	// send it to their evaluator as it is instead of encoding Data again (nil: they encode Data).
	Raw json.RawMessage
	// Key identifies the attempt for side effects outside PostgreSQL (HTTP, mail): a repeated delivery of
	// the same attempt carries the same key.
	Key string
	// Vars are the values of the variables its expressions read (a jqrun.Vars object: $input, $tasks);
	// nil when they read none.
	Vars json.RawMessage
	// Flow and Version are the flow version the execution runs, and Preds the task's distinct
	// predecessors, as the engine compiled them, so that an executor need not read them again (Version
	// is 0 when the caller did not say).
	Flow    uuid.UUID
	Version int
	Preds   []string
}

// Result is what an attempt produced. When WaitUntil is set the attempt is not finished: it waits,
// without holding a goroutine, until then, and completes with Output.
type Result struct {
	Output any
	// Detail is recorded on the attempt beside its output: what a condition decided ({"result": bool},
	// which decides the edges out of it), what a delay waited.
	Detail    any
	WaitUntil time.Time
	// InTx, when set, runs inside the transaction that records the attempt's outcome, so what it
	// writes (a mail in the outbox, a review task) commits exactly when the outcome does, once; an error
	// fails the attempt. It cannot change the output: the edges out of the task are decided from Output
	// before that transaction opens, as no tenant's program may run while it holds its row locks.
	InTx func(ctx context.Context, tx *sqlx.Tx) error
	// Together, when set, is InTx in a form the engine may run for several attempts at once, in one
	// transaction (the first steps of executions started together): it runs each group of attempts
	// whose Together share a Key with one call of Write. An error fails them all, and the engine then
	// records each attempt alone, with its InTx.
	Together *Together
	// Park leaves the attempt running once InTx has run, with no deadline: something outside the
	// engine finishes it (a person completing a review, an outside worker's report) through the
	// engine's Report.
	Park bool
	// AwaitingInput, with Park, puts the execution in awaiting_input until the attempt is finished.
	AwaitingInput bool
}

// Together is what an attempt's InTx writes, for writing with other attempts' (Result.Together).
type Together struct {
	// Key groups the attempts written together: a comparable value of the executor's.
	Key any
	// Item is this attempt's part, as Write takes it.
	Item any
	// Write writes the items of a group in tx, as each one's InTx would.
	Write func(ctx context.Context, tx *sqlx.Tx, items []any) error
}

// Executor runs one task type.
type Executor interface {
	Run(ctx context.Context, in Input) (Result, error)
}

// Func adapts a function to Executor.
type Func func(ctx context.Context, in Input) (Result, error)

// Run calls f.
func (f Func) Run(ctx context.Context, in Input) (Result, error) { return f(ctx, in) }

// Set maps task type names to their executors.
type Set map[string]Executor

// permanent marks an error that a retry cannot cure.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Permanent wraps err so that the engine fails the task at once instead of retrying it.
func Permanent(err error) error { return permanent{err} }

// IsPermanent reports whether err was marked Permanent.
func IsPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

// Unavailable stands in for the executor of a task type the server has none for: every attempt fails for
// good with a message that says so. Set.Check keeps a server from starting with a built-in type other
// than external (whose attempts outside workers claim) left without its executor, so this is a backstop.
func Unavailable(typeName, why string) Executor {
	return Func(func(context.Context, Input) (Result, error) {
		return Result{}, Permanent(errors.New("tasks of type " + typeName + " cannot run on this server yet: " + why))
	})
}

// Check holds the set to the task-type registry, so that a type is declared in one place and cannot be
// left without its runner: it fails when a registered type has no executor (every task of that type
// would fail when it runs, after the validator accepted the flow), or when an executor runs a type the
// registry does not hold (the validator refuses such a task, so it never runs). outside names the
// registered types whose attempts no executor runs, because outside workers claim them; an executor of
// one of those is an error too, as the engine never calls it.
func (s Set) Check(reg *tasks.Registry, outside ...string) error {
	names := slices.Clone(outside)
	for name := range s {
		if slices.Contains(outside, name) {
			return fmt.Errorf("task type %s is run by outside workers, yet has an executor the engine never calls", name)
		}
		names = append(names, name)
	}
	slices.Sort(names) // the map's order would make the message vary
	return reg.Mismatch("the executor set (with "+strings.Join(outside, ", ")+" run outside)", names)
}

// Kind says where the engine may run an executor besides its workers (see Mark).
type Kind int

const (
	// Anywhere is every executor's kind unless marked: it runs in a worker, outside any transaction.
	Anywhere Kind = iota
	// Computes marks an executor whose Run only computes its result from the attempt's input and
	// variables (a tenant's program, bounded by its evaluator): it calls nothing outside the process and
	// writes nothing, so the engine may run it before the transaction that starts an execution opens, and
	// record its outcome in that transaction.
	Computes
	// Records marks an executor whose Run returns at once and runs no tenant's program, all its work
	// being what Result.InTx writes: the engine may run it inside a transaction it already holds.
	Records
)

type marked struct {
	Executor
	kind Kind
}

// Mark gives ex a Kind. An executor that wraps another (to count or trace its runs) is marked with the
// wrapped one's kind, so that wrapping does not change where it may run.
func Mark(ex Executor, k Kind) Executor {
	if k == Anywhere {
		return ex
	}
	return marked{ex, k}
}

// KindOf is the Kind ex was marked with (Anywhere for nil or unmarked).
func KindOf(ex Executor) Kind {
	if m, ok := ex.(marked); ok {
		return m.kind
	}
	return Anywhere
}
