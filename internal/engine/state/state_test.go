package state

import (
	"testing"
)

func TestTablesAreClosed(t *testing.T) {
	// Every status a move leads to is a status of the same set, with a row of its own.
	for from, tos := range execMoves {
		for _, to := range tos {
			if !Known(to) {
				t.Errorf("execution move %s -> %s leads to an unknown status", from, to)
			}
		}
	}
	for from, tos := range taskMoves {
		for _, to := range tos {
			if !Known(to) {
				t.Errorf("task move %s -> %s leads to an unknown state", from, to)
			}
		}
	}
	for from, tos := range attemptMoves {
		for _, to := range tos {
			if !Known(to) {
				t.Errorf("attempt move %s -> %s leads to an unknown status", from, to)
			}
		}
	}
}

func TestMoves(t *testing.T) {
	cases := []struct {
		m  Move
		ok bool
	}{
		{Move{"flow_executions", "queued", "running"}, true},
		{Move{"flow_executions", "awaiting_input", "in_progress"}, true},
		{Move{"flow_executions", "completed", "stale"}, true},
		{Move{"flow_executions", "deleted", "queued"}, false},
		{Move{"flow_executions", "in_progress", "running"}, false},
		{Move{"flow_executions", "completed", "failed"}, false},
		{Move{"flow_executions", "queued", "bogus"}, false},
		{Move{"execution_tasks", "waiting", "skipped"}, true},
		{Move{"execution_tasks", "skipped", "completed"}, false},
		{Move{"execution_tasks", "waiting", "completed"}, false},
		{Move{"task_executions", "running", "queued"}, true},
		{Move{"task_executions", "completed", "running"}, false},
		{Move{"task_executions", "cancelled", "completed"}, false},
		{Move{"jobs", "SCHEDULED", "COMPLETED"}, false},
	}
	for _, c := range cases {
		if err := Check(c.m); (err == nil) != c.ok {
			t.Errorf("Check(%v) = %v, want allowed %v", c.m, err, c.ok)
		}
	}
}

func TestOutsideWorkersMoveForwardOnly(t *testing.T) {
	if OutsideMove(AttemptRunning, AttemptQueued) {
		t.Error("an outside report moved a running attempt back to queued")
	}
	if !OutsideMove(AttemptRunning, AttemptRunning) || !OutsideMove(AttemptQueued, AttemptCompleted) {
		t.Error("a heartbeat or a report straight to completed was refused")
	}
	for _, s := range []Attempt{AttemptCompleted, AttemptFailed, AttemptCancelled} {
		if !s.Final() || OutsideMove(s, AttemptRunning) {
			t.Errorf("%s is not final", s)
		}
	}
}

func TestList(t *testing.T) {
	if got, want := List(ExecActive), "('queued', 'running', 'in_progress', 'awaiting_input')"; got != want {
		t.Fatalf("List(ExecActive) = %s, want %s", got, want)
	}
	for _, s := range ExecActive {
		if !s.Active() {
			t.Errorf("%s is listed active but Active says no", s)
		}
	}
	if ExecCompleted.Active() || ExecStale.Active() {
		t.Error("a finished status counts as active")
	}
}
