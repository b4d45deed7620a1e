package bulk

import (
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/state"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// Statuses, as SQL lists, that the operations test: a job is unfinished until it is COMPLETED,
// FAILED, CANCELED or EXPIRED, and a flow execution runs until it completes, fails or is deleted.
const (
	unfinishedJobs = `('PENDING', 'SCHEDULED', 'IN_PROGRESS', 'SUSPENDED')`
	rerunnableJobs = `('PENDING', 'SCHEDULED', 'SUSPENDED')`
)

// runningExecutions are the engine's active statuses (state.ExecActive).
var runningExecutions = state.List(state.ExecActive)

// syncLimit is the largest selection a cancel or delete request handles before its reply; beyond it
// the work runs as a background operation.
const syncLimit = 1000

// target is the selection of an operation: the jobs of one app, of its organization, that match the
// filter.
type target struct {
	App    uuid.UUID
	Org    uuid.UUID
	Filter filter.Set
}

// actor is who a change is recorded for: the username the job history and the operation show (nil
// for an API key or the system) and the modified_by of flow executions stopped on the way.
type actor struct {
	Username   *string
	ModifiedBy string
}

// systemActor is the background worker acting for an operation.
var systemActor = actor{ModifiedBy: "system"}

// actorOf is the caller as the job history records it: by username (its e-mail address), or nobody
// when it authenticated with an API key, as the contract's JobHistoryEntry.actor says.
func actorOf(p *auth.Principal) actor {
	a := actor{ModifiedBy: p.Actor()}
	if p.Credential != auth.CredentialAPIKey && p.Email != "" {
		email := p.Email
		a.Username = &email
	}
	return a
}

// compile compiles the target's filter after argBase fixed arguments; a filter the schema accepts but
// that cannot be used is the 400 naming its parameter.
func (t target) compile(argBase int) (filter.Where, error) {
	w, err := t.Filter.Compile(argBase)
	var problem *filter.Problem
	if errors.As(err, &problem) {
		return w, problem.HTTP()
	}
	return w, err
}
