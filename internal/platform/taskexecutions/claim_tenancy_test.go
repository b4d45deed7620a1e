package taskexecutions_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestClaimStaysInTheOrganization: a worker of organization B never takes an attempt of A, even one
// that is older than B's own and matches every filter B sends; A's worker still gets it afterwards,
// and B cannot report on it: the report answers exactly like one for a random execution id.
func TestClaimStaysInTheOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	orgA, orgB := env.Org(t), env.Org(t)
	userA, userB := env.User(t, orgA, auth.RoleAppUser), env.User(t, orgB, auth.RoleAppUser)
	workerA, workerB := env.KeyCaller(t, orgA, auth.RoleIntegration), env.KeyCaller(t, orgB, auth.RoleIntegration)
	adminB := env.User(t, orgB, auth.RoleOrgAdmin)
	flowA := testkit.NewFlow(t, userA, externalDef)
	execA := start(t, env, userA, flowA, map[string]any{"page": 1})

	// B has nothing of its own yet: every claim, however narrow or wide, gets nothing.
	for _, r := range []platformapi.TaskExecutionClaimRequest{
		{Worker: "b"},
		{Worker: "b", TaskNames: &[]string{"fetch"}, Queue: new("ocr")},
		{Worker: "b", TaskNames: &[]string{"fetch"}, Queue: new("ocr"), FlowId: &flowA},
	} {
		for _, c := range []*testkit.Caller{workerB, adminB} {
			if got := claim(t, c, r); got != nil {
				t.Fatalf("%s of B claimed %+v with %+v", c.Role, got.TaskExecution, r)
			}
		}
	}
	// Once B has a waiting attempt of the same task and queue, B gets its own, younger one, and then nothing.
	execB := start(t, env, userB, testkit.NewFlow(t, userB, externalDef), map[string]any{"page": 2})
	same := platformapi.TaskExecutionClaimRequest{Worker: "b", TaskNames: &[]string{"fetch"}, Queue: new("ocr")}
	got := claim(t, workerB, same)
	if got == nil || got.TaskExecution.FlowExecutionId != execB || got.TaskExecution.OrganizationId != orgB {
		t.Fatalf("B claimed %+v, want its own attempt of %s", got, execB)
	}
	if again := claim(t, workerB, same); again != nil {
		t.Fatalf("B claimed a second attempt: %+v", again.TaskExecution)
	}
	untouched := list(t, userA, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: execA})
	if len(untouched) != 1 || untouched[0].Status != platformapi.TaskExecutionStatusQueued || untouched[0].StartedAt != nil {
		t.Fatalf("A's attempt after B's claims: %+v", untouched)
	}

	same.Worker = "a"
	mine := claim(t, workerA, same)
	if mine == nil || mine.TaskExecution.Id != untouched[0].Id || mine.TaskExecution.Status != platformapi.TaskExecutionStatusRunning ||
		mine.TaskExecution.Input.(map[string]any)["page"] != 1.0 || mine.FlowId != flowA {
		t.Fatalf("A claimed %+v, want its attempt %s", mine, untouched[0].Id)
	}

	// B reports on A's claimed attempt: the same 404 as for a random id, and nothing moves.
	for _, status := range []platformapi.TaskExecutionStatus{platformapi.TaskExecutionStatusRunning, platformapi.TaskExecutionStatusCompleted} {
		output := ""
		if status == platformapi.TaskExecutionStatusCompleted {
			output = `{"text": "forged"}`
		}
		for _, c := range []*testkit.Caller{workerB, adminB} {
			res, err := c.API.RecordTaskExecutionWithResponse(ctx, req(execA, "fetch", 0, status, "", output))
			if err != nil {
				t.Fatal(err)
			}
			missing, err := c.API.RecordTaskExecutionWithResponse(ctx, req(uuid.New(), "fetch", 0, status, "", output))
			if err != nil {
				t.Fatal(err)
			}
			testkit.SameAsMissing(t, res, missing)
		}
	}
	after := list(t, userA, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: execA})
	if len(after) != 1 || after[0].Status != platformapi.TaskExecutionStatusRunning || after[0].Output != nil ||
		!after[0].UpdatedAt.Equal(mine.TaskExecution.UpdatedAt) {
		t.Fatalf("A's attempt after B's reports: %+v", after)
	}
	x, err := userA.API.GetFlowExecutionWithResponse(ctx, execA, nil)
	testkit.Expect(t, x, err, http.StatusOK)
	if x.JSON200.Status == platformapi.ExecutionStatusCompleted || x.JSON200.Output != nil {
		t.Fatalf("B's report moved A's execution: %+v", x.JSON200)
	}
}
