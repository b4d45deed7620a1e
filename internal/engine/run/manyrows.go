package run

import (
	"encoding/json"

	"github.com/google/uuid"
)

// manyExec, manyTask, manyAttempt and manySkip are the rows CreateMany's statement writes
// (jsonb_to_recordset); JSON values a task produced travel as text, as everywhere in the engine, so that
// a null output is stored as JSON null.
type manyExec struct {
	ID        uuid.UUID       `json:"id"`
	Org       uuid.UUID       `json:"org"`
	Flow      uuid.UUID       `json:"flow"`
	Version   int             `json:"version"`
	Input     json.RawMessage `json:"input"`
	RunNumber int             `json:"run_number"`
	CreatedBy *uuid.UUID      `json:"created_by"`
	Actor     string          `json:"actor"`
	JobApp    *uuid.UUID      `json:"job_app"`
	Job       *int64          `json:"job"`
	Tasks     int             `json:"tasks"`
	Status    string          `json:"status"`
}

type manyTask struct {
	Exec     uuid.UUID `json:"exec"`
	Org      uuid.UUID `json:"org"`
	Name     string    `json:"n"`
	State    string    `json:"st"`
	Waiting  int64     `json:"w"`
	Held     bool      `json:"h"`
	Attempts int       `json:"a"`
	Output   any       `json:"o"` // nullJSON
}

type manyAttempt struct {
	Exec   uuid.UUID       `json:"exec"`
	Org    uuid.UUID       `json:"org"`
	Name   string          `json:"n"`
	Idx    int             `json:"i"`
	Status string          `json:"st"`
	Input  json.RawMessage `json:"input"`
	Vars   json.RawMessage `json:"vars,omitempty"` // absent: none (NULL)
	Output any             `json:"o"`              // nullJSON
	Detail any             `json:"dt"`
	Parked bool            `json:"p"` // running with no deadline: it parked in the start (see recordAhead)
}

type manySkip struct {
	Exec uuid.UUID `json:"exec"`
	Org  uuid.UUID `json:"org"`
	Name string    `json:"n"`
}

// manyRows are the rows of CreateMany's statement.
type manyRows struct {
	execs []manyExec
	tasks []manyTask
	atts  []manyAttempt
	skips []manySkip
}

// fresh is one execution of CreateMany: laid out, its first round walked in memory when its first tasks
// ran ahead (mem, w), its attempts and the places taken here for them.
type fresh struct {
	x     Execution
	l     laid
	mem   *memLayout
	w     *walk
	atts  []attempt
	here  []bool
	taken int
	// ran are the attempts claimed here whose executors only record, run before the rows are written
	// and parked, by task (see recordAhead).
	ran map[string]parkedHere
}

// rows adds f's rows: its execution, its tasks as its first round left them, and its attempts.
func (r *manyRows) add(n NewExecution, f *fresh) {
	x := manyExec{ID: n.ID, Org: n.Org, Flow: n.Flow, Version: n.Version, Input: f.x.input(), RunNumber: n.RunNumber,
		CreatedBy: n.CreatedBy, Actor: n.Actor, JobApp: n.JobApp, Job: n.Job, Tasks: len(f.l.names), Status: "queued"}
	for i, name := range f.l.names {
		m := laidTask(f.l.waiting[i])
		if f.mem != nil {
			m = *f.mem.tasks[name]
		}
		r.tasks = append(r.tasks, manyTask{Exec: n.ID, Org: n.Org, Name: name, State: m.state, Waiting: m.waiting, Held: m.held,
			Attempts: m.attempts, Output: nullJSON(m.output)})
	}
	if f.mem != nil {
		// As the count of a completion leaves it (counted): in progress, its finished tasks off the count.
		x.Status, x.Tasks = "in_progress", len(f.l.names)-f.w.final
		for _, name := range f.mem.skipped {
			r.skips = append(r.skips, manySkip{Exec: n.ID, Org: n.Org, Name: name})
		}
	}
	for j, a := range f.atts {
		row := manyAttempt{Exec: n.ID, Org: n.Org, Name: a.task, Idx: a.idx, Status: "queued", Input: a.input, Vars: a.vars}
		switch {
		case a.ahead && f.mem != nil:
			o, _ := f.x.Pre.outcome(f.x.ID, f.w.p.key, a.task)
			row.Status, row.Output, row.Detail = "completed", nullJSON(o.output), nullJSON(o.detail)
		case f.here[j]:
			row.Status = "running"
			if d, ok := f.ran[a.task]; ok {
				// As park leaves it and its execution: waiting for input, or running when it was queued.
				row.Parked = true
				switch {
				case d.o.result.AwaitingInput:
					x.Status = "awaiting_input"
				case x.Status == "queued":
					x.Status = "running"
				}
			}
		}
		r.atts = append(r.atts, row)
	}
	r.execs = append(r.execs, x)
}
