package jqrun

import (
	"errors"
	"fmt"
	"time"
)

// LimitError is an evaluation stopped because it passed one of its limits. Limit is "time", "memory",
// "result size" or "variables" (what the engine hands a program as $input and $tasks); the message
// names the limit and its value so that the author of the program can tell which of them to look at.
type LimitError struct {
	Limit string
	// Time is the deadline that passed (Limit "time"); Bytes the bound (the other limits).
	Time  time.Duration
	Bytes int64
	// Detail is what passed the bound, when known ("17000000 bytes").
	Detail string
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "time":
		return fmt.Sprintf("the jq program passed its time limit of %s", e.Time)
	case "memory":
		return fmt.Sprintf("the jq program passed its memory limit of %s", mib(e.Bytes))
	case "variables":
		return fmt.Sprintf("the variables the task reads ($input, $tasks) came to %s, past their size limit of %s; "+
			"name the tasks whose outputs it needs ($tasks.name) rather than reading $tasks whole", e.Detail, mib(e.Bytes))
	default:
		return fmt.Sprintf("the jq program's result passed its size limit of %s", mib(e.Bytes))
	}
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// IsLimit reports whether err is (or wraps) a LimitError.
func IsLimit(err error) bool {
	var l *LimitError
	return errors.As(err, &l)
}

// EvalError is a jq program that failed on its own terms: it did not compile, raised an error, or
// gave a value JSON cannot hold. The same program on the same input fails again.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }
