// Package state is where a newcomer to the engine starts: the three state machines of an execution, its
// tasks and their attempts, the moves each allows, the order in which the engine's transactions lock
// their rows, and what runs in which transaction. Every write to these rows is made by the engine
// (internal/engine/run); /api and /v1 call its verbs. The tables below are the rules: the engine's tests
// record every status change the database sees (see statetest) and fail on a move that is not in them.
//
// # Rows
//
//   - flow_executions: one per execution (Exec). Its tasks_left counts the tasks not yet final.
//   - execution_tasks: one per task of the execution's flow version (Task). waiting_on counts the
//     predecessors not yet final, held whether an edge into the task held; attempts counts attempts made.
//   - task_executions: one per attempt of a task (Attempt), numbered by task_execution_idx from 0. The
//     task's current attempt is the one with idx = attempts - 1. Outside workers may record attempts of
//     their own beside those (any other idx, or a task the engine does not know): those are theirs and
//     never move the execution.
//
// # Lock order
//
// Every transaction that changes more than one of these rows locks them in this order, so that two of
// them never wait on each other: first the attempts (task_executions), then the tasks (execution_tasks,
// by name), then the execution (flow_executions), and last the /v1 job that follows the execution (jobs,
// by the trigger job_follows_execution, or by the caller after the engine's verb). A transaction that changes the execution only after
// reading its status does not lock it first: it reads it, and the attempt's lock orders it with a stop
// or a delete, which cancels the attempts before it ends the execution.
//
// # Transactions
//
//   - Start: the execution's row, its tasks' rows and the first attempts (with their River jobs, or
//     written as running under this process's lease) commit together, in the caller's transaction.
//   - An attempt's outcome, everything it causes (successors made ready, their jobs, the execution's
//     status, the River job's completion) and the /v1 job that follows the execution commit together.
//   - No tenant program (jq) runs while such a transaction is open: edge conditions are decided before
//     it, or by a job queued in it that runs after it commits.
//   - Halting (stop, delete, expiry, bulk cancel) cancels attempts, then tasks, then ends the execution.
//
// # Hooks: what follows an execution
//
// Two things outside the engine's tables follow an execution, both in the transaction that changes it:
//
//   - run.Engine.OnEnd (Go) is told of each execution that completes or fails; the /v1 half admits the
//     next jobs of the app with it.
//   - The SQL trigger job_follows_execution (AFTER UPDATE OF status ON flow_executions; db/schema.sql)
//     moves the /v1 job that runs the execution to the matching job status (queued -> SCHEDULED,
//     running and in_progress -> IN_PROGRESS, awaiting_input -> SUSPENDED, completed, failed, deleted ->
//     CANCELED), with its response and score. It stays a trigger because every status write of the engine (about twenty
//     statements, several of them one statement for a whole transition) would otherwise need a second
//     statement, one more round trip per step on the hot path; the trigger runs inside the statement.
//     A caller that moves the jobs itself turns it off for its transaction (loopwork.jobs_follow, see
//     run.Halt's Quiet).
package state

// Exec is the status of an execution (flow_executions.status).
type Exec string

// The statuses of an execution.
const (
	ExecQueued        Exec = "queued"         // created; no attempt has started yet
	ExecRunning       Exec = "running"        // an attempt started; none has completed
	ExecInProgress    Exec = "in_progress"    // at least one task completed
	ExecAwaitingInput Exec = "awaiting_input" // an attempt waits for people (a human review)
	ExecCompleted     Exec = "completed"      // every task is final and none failed
	ExecFailed        Exec = "failed"         // a task failed for good, or someone stopped it
	ExecStale         Exec = "stale"          // finished on a definition that has since changed
	ExecDeleted       Exec = "deleted"        // deleted by a user, with its flow, or by its time to live
)

// ExecActive are the statuses in which an execution's tasks still run. It is the one list of them:
// SQL takes it from here (see List).
var ExecActive = []Exec{ExecQueued, ExecRunning, ExecInProgress, ExecAwaitingInput}

// ExecFinished are the statuses of an execution that ran to its end (a rerun or a new version may
// start it again).
var ExecFinished = []Exec{ExecCompleted, ExecFailed}

// execMoves are the moves of an execution. Rerun (queued from a finished status) lays the execution
// out again on a version; the expiry sweep deletes finished ones.
var execMoves = map[Exec][]Exec{
	ExecQueued:        {ExecRunning, ExecInProgress, ExecAwaitingInput, ExecCompleted, ExecFailed, ExecDeleted},
	ExecRunning:       {ExecInProgress, ExecAwaitingInput, ExecCompleted, ExecFailed, ExecDeleted},
	ExecInProgress:    {ExecAwaitingInput, ExecCompleted, ExecFailed, ExecDeleted},
	ExecAwaitingInput: {ExecInProgress, ExecCompleted, ExecFailed, ExecDeleted},
	ExecCompleted:     {ExecStale, ExecQueued, ExecDeleted},
	ExecFailed:        {ExecStale, ExecQueued, ExecDeleted},
	ExecStale:         {ExecQueued, ExecDeleted},
	ExecDeleted:       nil,
}

// Active is whether tasks of an execution in status s still run.
func (s Exec) Active() bool { return in(ExecActive, s) }

// Task is the state of one task of an execution (execution_tasks.state).
type Task string

// The states of a task.
const (
	TaskWaiting   Task = "waiting"   // some predecessor is not final yet
	TaskReady     Task = "ready"     // its current attempt is queued or running
	TaskCompleted Task = "completed" // an attempt completed; its output is the task's
	TaskFailed    Task = "failed"    // its last attempt failed and no retry is left
	TaskSkipped   Task = "skipped"   // every predecessor is final and no edge into it held
	TaskCancelled Task = "cancelled" // the execution stopped, or a sibling failed, before it finished
)

// taskMoves are the moves of a task. A rerun lays kept-but-dirty tasks out again (waiting), from any
// final state; a retry keeps a task ready and counts one more attempt.
var taskMoves = map[Task][]Task{
	TaskWaiting:   {TaskReady, TaskSkipped, TaskCancelled},
	TaskReady:     {TaskCompleted, TaskFailed, TaskCancelled},
	TaskCompleted: {TaskWaiting},
	TaskFailed:    {TaskWaiting},
	TaskSkipped:   {TaskWaiting},
	TaskCancelled: {TaskWaiting},
}

// Attempt is the status of one attempt of a task (task_executions.status).
type Attempt string

// The statuses of an attempt.
const (
	AttemptQueued    Attempt = "queued"
	AttemptRunning   Attempt = "running"
	AttemptCompleted Attempt = "completed"
	AttemptFailed    Attempt = "failed"
	AttemptCancelled Attempt = "cancelled"
)

// attemptMoves are the moves of an attempt made by the engine. running goes back to queued only when
// its lease ran out (its process died; SweepLost delivers the same attempt again). Outside workers'
// reports move forward only (see OutsideMove).
var attemptMoves = map[Attempt][]Attempt{
	AttemptQueued:    {AttemptRunning, AttemptCompleted, AttemptFailed, AttemptCancelled},
	AttemptRunning:   {AttemptQueued, AttemptCompleted, AttemptFailed, AttemptCancelled},
	AttemptCompleted: nil,
	AttemptFailed:    nil,
	AttemptCancelled: nil,
}

// Final is whether an attempt in status s never moves again.
func (s Attempt) Final() bool { return len(attemptMoves[s]) == 0 }

// OutsideMove is whether an outside worker's report may move an attempt from one status to another:
// forward only (running never goes back to queued), or a repeat of the current status.
func OutsideMove(from, to Attempt) bool {
	return from == to || (Legal(from, to) && !(from == AttemptRunning && to == AttemptQueued))
}

func in[S ~string](set []S, s S) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}
