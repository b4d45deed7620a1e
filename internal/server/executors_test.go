package server

import (
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// TestBuiltinExecutorsCoverRegistry fails when a built-in task type has no executor or an executor runs
// no built-in type, naming which: adding a type to the registry means adding what runs it. Only the
// set's names are read, so every dependency may be empty.
func TestBuiltinExecutorsCoverRegistry(t *testing.T) {
	t.Parallel()
	set := builtinExecutors(executors.JQ{}, &http.Client{}, executors.MailDeps{}, executors.Unavailable("human_review", "test"),
		nil, executors.SQLLimits{}, nil, nil, nil)
	if err := set.Check(tasks.Builtin(), run.External); err != nil {
		t.Fatal(err)
	}
}
