// Package dsl parses and validates flow definitions (DESIGN.md §6, the FlowDefinition schema of the /api contract)
// and orders their tasks topologically. It finds every problem in one pass and reports each as an Error shaped
// like the contract's ErrorDetails, with a loc path into the request body.
//
// Decisions the contract leaves open:
//   - Unknown fields of the definition, of a task, of an edge and of a retry object are errors (extra_forbidden),
//     so that a misspelt field is reported instead of silently ignored. The read-only fields a task carries in
//     replies (`dynamic_data`, `output_schema`) are accepted and ignored, so a definition read with them can be
//     saved again as it is.
//   - An edge repeated with the same source and target is allowed and counts once in the order; each copy's
//     condition is still checked.
//   - Limits (MaxTasks, MaxEdges, MaxDepth, ...) are checked first; an array over its limit is reported once and
//     its items are not examined, which keeps the work bounded whatever the input.
package dsl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// Limits of a definition.
const (
	MaxTasks          = 10000                   // tasks in one definition
	MaxEdges          = 50000                   // edges in one definition
	MaxNameLength     = 200                     // characters of a task name
	MaxDescriptionLen = 5000                    // characters of a task description
	MaxDepth          = tasks.MaxParameterDepth // nesting of objects and arrays inside a task's parameters
	// MaxDefinitionDepth bounds the nesting of the whole definition, unknown fields included, so that
	// nothing stored as a definition is deeper than a reader's JSON decoder accepts.
	MaxDefinitionDepth  = MaxDepth + 16
	MaxExpressionLength = 10000      // characters of one jq expression or template
	MaxAttempts         = 20         // retry.max_attempts
	MaxBackoffSeconds   = 3600       // retry.backoff_seconds
	MaxTimeoutSeconds   = 30 * 86400 // timeout_seconds
	MaxErrors           = 1000       // errors returned; one more says how many were left out
	MaxWarnings         = 100        // warnings returned; one more says how many were left out
)

// Error kinds (Error.Type) this package produces itself; parameter problems carry the registry's words
// (missing, type, enum, format, minimum, additional_property, ...).
const (
	KindJSONInvalid       = "json_invalid"
	KindType              = "type"
	KindMissing           = "missing"
	KindExtraForbidden    = "extra_forbidden"
	KindVersion           = "enum"
	KindStringTooShort    = "string_too_short"
	KindStringTooLong     = "string_too_long"
	KindMinimum           = "minimum"
	KindMaximum           = "maximum"
	KindUnknownTaskType   = "unknown_task_type"
	KindDuplicateTaskName = "duplicate_task_name"
	KindUnknownTask       = "unknown_task"
	KindSelfLoop          = "self_loop"
	KindCycle             = "cycle"
	KindJQSyntax          = "jq_syntax"
	KindTemplateSyntax    = "template_syntax"
	KindTooManyTasks      = "too_many_tasks"
	KindTooManyEdges      = "too_many_edges"
	KindTooDeep           = "too_deep"
	KindTooManyErrors     = "too_many_errors"
	// KindNotUpstream is `$tasks.name` naming a task that does not run before the expression's task.
	KindNotUpstream = "task_not_upstream"
	// KindBranchWithoutCondition is an edge `branch` out of a task that is not a condition.
	KindBranchWithoutCondition = "branch_without_condition"
	// KindUnguardedEdge (a warning) is an edge without a guard into a task that has a guarded one: it makes
	// the task run whatever the guard says.
	KindUnguardedEdge = "unguarded_edge"
	// KindResultCondition (a warning) is an edge condition out of a condition task that reads `.result`, which
	// the task's output (its input, passed on) no longer holds: `branch` says which result the edge follows.
	KindResultCondition = "condition_reads_result"
	// KindTooManyWarnings says how many warnings past MaxWarnings were left out.
	KindTooManyWarnings = "too_many_warnings"
	// KindExternalRef is a tenant's JSON schema with a $ref outside itself, which is never loaded.
	KindExternalRef = tasks.KindExternalRef
)

// Definition is a parsed flow definition.
type Definition struct {
	Version int
	Tasks   []Task
	Edges   []Edge
}

// Task is one task of a definition.
type Task struct {
	Name           string
	Type           string
	Parameters     map[string]any
	Retry          Retry
	TimeoutSeconds *int
	Description    *string
	Index          int // position in the tasks array
	// Vars is what the task's parameters read beyond its input ($input, $tasks); nil when nothing (a
	// pointer, so that the many tasks and edges that read nothing cost a word each).
	Vars *Vars
}

// Retry is how often a failing task is tried.
type Retry struct {
	MaxAttempts    int     // default 1
	BackoffSeconds float64 // default 0
}

// Edge is a dependency: Target runs after Source.
type Edge struct {
	Source, Target string
	Condition      *string
	// Branch, out of a condition task, is the result the edge follows (nil: true).
	Branch *bool
	// Vars is what the condition reads beyond the source's output; nil when nothing.
	Vars *Vars
}

// Follows is the result of a condition source that the edge follows: its Branch, true by default.
func (e Edge) Follows() bool { return e.Branch == nil || *e.Branch }

// Error is one problem, shaped like the contract's ErrorDetails.
type Error struct {
	Type  string         // kind, see the Kind constants
	Loc   []any          // path into the request body, starting with "definition": ["definition","tasks",2,"parameters","url"]
	Msg   string         // a sentence in English
	Input any            // the offending value, shortened when large
	Ctx   map[string]any // extra, e.g. {"tasks": ["a","b","a"]} for a cycle
}

// Result is the outcome of a validation.
type Result struct {
	Definition *Definition // the parsed definition, as far as its shape allowed (nil when `definition` is not an object)
	Errors     []Error     // empty means valid
	// Warnings are what is valid but likely not what the author meant (an unguarded edge beside a guarded
	// one); they never make a definition invalid.
	Warnings []Error
	Order    []string // topological order of task names; nil unless the task graph is sound (names unique and non-empty, every edge between existing tasks, no cycle, no self-loop)
}

// Validate checks a decoded definition (what encoding/json gives for a JSON object; json.Number accepted too).
// Within a definition every expression is compiled once, however often it repeats.
func Validate(def any, reg *tasks.Registry) Result {
	v := newValidator(reg)
	obj, ok := def.(map[string]any)
	if !ok {
		v.add(Error{Type: KindType, Loc: []any{"definition"}, Msg: "The definition must be a JSON object.", Input: def})
		return Result{Errors: v.errors()}
	}
	v.def = &Definition{}
	v.definition(obj)
	return Result{Definition: v.def, Errors: v.errors(), Order: v.order, Warnings: v.allWarnings()}
}

// ValidateJSON decodes and validates; a body that is not JSON or not an object is one Error at ["definition"].
// Numbers are decoded as json.Number, so that large integers keep every digit.
func ValidateJSON(raw []byte, reg *tasks.Registry) Result {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var def any
	err := dec.Decode(&def)
	if err == nil {
		if _, tail := dec.Token(); !errors.Is(tail, io.EOF) {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err != nil {
		return Result{Errors: []Error{{Type: KindJSONInvalid, Loc: []any{"definition"},
			Msg: "The definition is not valid JSON: " + err.Error() + "."}}}
	}
	return Validate(def, reg)
}
