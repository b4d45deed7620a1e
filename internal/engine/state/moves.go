package state

import (
	"fmt"
	"strings"
)

// Status is any of the three status sets.
type Status interface{ Exec | Task | Attempt }

// Legal is whether the table of its set allows the move from one status to another. Staying in the
// same status is not a move and is always allowed (an update that changes other columns).
func Legal[S Status](from, to S) bool {
	if from == to {
		return true
	}
	return in(movesOf(from), to)
}

// movesOf is the row of the table of from's set.
func movesOf[S Status](from S) []S {
	switch f := any(from).(type) {
	case Exec:
		return any(execMoves[f]).([]S)
	case Task:
		return any(taskMoves[f]).([]S)
	case Attempt:
		return any(attemptMoves[f]).([]S)
	}
	return nil
}

// Known is whether s is a status of its set.
func Known[S Status](s S) bool {
	switch v := any(s).(type) {
	case Exec:
		_, ok := execMoves[v]
		return ok
	case Task:
		_, ok := taskMoves[v]
		return ok
	case Attempt:
		_, ok := attemptMoves[v]
		return ok
	}
	return false
}

// Move is one status change of a row of the set named by Table.
type Move struct {
	Table string `db:"table"` // flow_executions, execution_tasks or task_executions
	From  string `db:"from"`
	To    string `db:"to"`
}

// Check reports whether a recorded move is in the table of its row's set.
func Check(m Move) error {
	var ok bool
	switch m.Table {
	case "flow_executions":
		ok = Known(Exec(m.From)) && Known(Exec(m.To)) && Legal(Exec(m.From), Exec(m.To))
	case "execution_tasks":
		ok = Known(Task(m.From)) && Known(Task(m.To)) && Legal(Task(m.From), Task(m.To))
	case "task_executions":
		ok = Known(Attempt(m.From)) && Known(Attempt(m.To)) && Legal(Attempt(m.From), Attempt(m.To))
	default:
		return fmt.Errorf("%s is not a table of the engine", m.Table)
	}
	if !ok {
		return fmt.Errorf("%s moved from %s to %s, which its state machine does not allow", m.Table, m.From, m.To)
	}
	return nil
}

// List is a set of statuses as an SQL list of literals, e.g. ('queued', 'running'), to write after IN.
// Literals rather than a parameter keep the planner able to match partial indexes on status.
func List[S Status](set []S) string {
	quoted := make([]string, len(set))
	for i, s := range set {
		quoted[i] = "'" + string(s) + "'"
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}
