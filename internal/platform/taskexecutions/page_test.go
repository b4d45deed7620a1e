package taskexecutions_test

import (
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestListPages: pages of limit attempts in one order; page 1 of 100 when neither is given.
func TestListPages(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := bareExecution(t, env, org, nil, "organization", "running")
	for i := 0; i < 5; i++ {
		record(t, worker, req(exec, "step", i, platformapi.TaskExecutionStatusQueued, "", ""), http.StatusCreated)
	}
	all := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})
	if len(all) != 5 {
		t.Fatalf("%d attempts listed without paging, want all 5 (fewer than a page)", len(all))
	}
	page := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, Limit: new(2), Page: new(2)})
	if len(page) != 2 || page[0].TaskExecutionIdx != all[2].TaskExecutionIdx || page[1].TaskExecutionIdx != all[3].TaskExecutionIdx {
		t.Fatalf("page 2 of 2: %+v", page)
	}
	if first := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, Page: new(1)}); len(first) != 5 {
		t.Fatalf("page 1 with the default limit: %d", len(first))
	}
	res, err := worker.API.ListTaskExecutionRecordsWithResponse(ctx, &platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, Limit: new(1001)})
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
}

// TestListDefaultPage: an execution with more attempts than a page answers only the first 100 when the
// caller names no page, so a list never reads every attempt of a large execution.
func TestListDefaultPage(t *testing.T) {
	t.Parallel()
	env := testkit.NewProcessEnv(t)
	org := env.Org(t)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := bareExecution(t, env, org, nil, "organization", "running")
	for i := 0; i < 101; i++ {
		record(t, worker, req(exec, "step", i, platformapi.TaskExecutionStatusQueued, "", ""), http.StatusCreated)
	}
	first := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})
	if len(first) != 100 || first[0].TaskExecutionIdx != 100 {
		t.Fatalf("%d attempts listed without paging (newest idx %d), want the first page of 100", len(first), first[0].TaskExecutionIdx)
	}
	rest := list(t, worker, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec, Page: new(2)})
	if len(rest) != 1 || rest[0].TaskExecutionIdx != 0 {
		t.Fatalf("page 2: %+v", rest)
	}
}
