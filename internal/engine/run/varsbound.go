package run

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// MaxVars bounds the variables one attempt is handed, and stores in task_executions.vars: as much as one
// jq result may hold. Named references ($tasks.extract) store what they name, each output bounded
// already; $tasks read whole in a long flow would otherwise store every upstream output on every
// attempt, growing with the square of the flow's length.
const MaxVars = jqrun.DefaultMaxResult

// oversized stands in the vars column for variables past the bound: the attempt fails with
// limit_exceeded when it runs, and what would not fit is never stored.
type oversized struct {
	TooLarge int `json:"too_large"`
}

// boundVars returns vars, or the stand-in when they pass max bytes.
func boundVars(vars json.RawMessage, max int) (json.RawMessage, error) {
	if len(vars) <= max {
		return vars, nil
	}
	return json.Marshal(oversized{TooLarge: len(vars)})
}

// varsError is the failure of an attempt whose variables passed the bound (nil when they did not):
// permanent, since the same outputs give the same variables again.
func varsError(vars json.RawMessage, max int) error {
	// Both spellings of the stand-in start so: Go's and PostgreSQL's jsonb text; real variables' keys
	// are input and tasks.
	if !bytes.HasPrefix(vars, []byte(`{"too_large"`)) {
		return nil
	}
	var o oversized
	_ = json.Unmarshal(vars, &o)
	return executors.Permanent(&jqrun.LimitError{Limit: "variables", Bytes: int64(max),
		Detail: fmt.Sprintf("%d bytes", o.TooLarge)})
}
