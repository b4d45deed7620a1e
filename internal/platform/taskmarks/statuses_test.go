package taskmarks_test

import (
	"reflect"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// pairs shows status records as "task=status" ("task=" for a clearing record).
func pairs(rs []platformapi.FlowTaskStatusAPI) []string {
	out := []string{}
	for _, r := range rs {
		s := r.TaskName + "="
		if r.Status != nil {
			s += *r.Status
		}
		out = append(out, s)
	}
	return out
}

func wantPairs(t *testing.T, what string, got []platformapi.FlowTaskStatusAPI, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if g := pairs(got); !reflect.DeepEqual(g, want) {
		t.Fatalf("%s: %q, want %q", what, g, want)
	}
}

// TestStatusesInOrder: records are made in request order, the newest record per task is its current
// status, a null status clears it, the current statuses come by task name and the history oldest first.
func TestStatusesInOrder(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	reader := env.User(t, org, auth.RoleAppUser)
	exec := execution(t, env, org, flowOpts{})
	other := execution(t, env, org, flowOpts{})

	created := addStatuses(t, integ, exec,
		st("review", new("running")), st("extract", new("running")), st("extract", new("completed")),
		st("B", new("skipped")), st("check", new("running")))
	wantPairs(t, "reply", created, "review=running", "extract=running", "extract=completed", "B=skipped", "check=running")
	for _, r := range created {
		if r.FlowExecutionId != exec || r.OrganizationId != org || r.CreatedAt == nil || *r.CreatedAt != *created[0].CreatedAt {
			t.Fatalf("record %+v: want this execution and organization and the request's one created_at", r)
		}
	}
	addStatuses(t, integ, other, st("extract", new("failed")))

	// Task names sort byte by byte: upper case first.
	wantPairs(t, "current", listStatuses(t, reader, exec, nil), "B=skipped", "check=running", "extract=completed", "review=running")

	// Clearing leaves the task out of the current statuses and stays in the history.
	addStatuses(t, integ, exec, st("check", nil), st("review", new("completed")))
	wantPairs(t, "after clearing", listStatuses(t, reader, exec, nil), "B=skipped", "extract=completed", "review=completed")
	wantPairs(t, "history", listStatuses(t, reader, exec, &platformapi.ListTaskStatusesParams{IncludeHistory: new(true)}),
		"review=running", "extract=running", "extract=completed", "B=skipped", "check=running", "check=", "review=completed")
	wantPairs(t, "history of one task", listStatuses(t, reader, exec,
		&platformapi.ListTaskStatusesParams{IncludeHistory: new(true), TaskName: new("review")}), "review=running", "review=completed")
	wantPairs(t, "current of one task", listStatuses(t, reader, exec, &platformapi.ListTaskStatusesParams{TaskName: new("extract")}),
		"extract=completed")
	wantPairs(t, "a cleared task", listStatuses(t, reader, exec, &platformapi.ListTaskStatusesParams{TaskName: new("check")}))
	wantPairs(t, "names are case-sensitive", listStatuses(t, reader, exec, &platformapi.ListTaskStatusesParams{TaskName: new("b")}))
	wantPairs(t, "include_history=false", listStatuses(t, reader, exec, &platformapi.ListTaskStatusesParams{IncludeHistory: new(false)}),
		"B=skipped", "extract=completed", "review=completed")

	// A status set again after clearing is current again; an omitted status clears like null.
	addStatuses(t, integ, exec, st("check", new("completed")), platformapi.AddTaskStatusRequestItem{TaskName: "B"})
	wantPairs(t, "set again", listStatuses(t, reader, exec, nil), "check=completed", "extract=completed", "review=completed")
	wantPairs(t, "an empty execution", listStatuses(t, reader, execution(t, env, org, flowOpts{}), nil))
}

// TestStatusesOfADeletedExecution stay readable after it is deleted, and nothing more is recorded.
func TestStatusesOfADeletedExecution(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := execution(t, env, org, flowOpts{})
	addStatuses(t, integ, exec, st("a", new("running")))
	deleteExecution(t, env, exec)
	res, err := integ.API.AddTaskStatusesWithResponse(ctx, exec, platformapi.AddTaskStatusRequest{
		Statuses: []platformapi.AddTaskStatusRequestItem{st("a", new("completed"))}})
	testkit.Expect(t, res, err, 409)
	wantPairs(t, "after delete", listStatuses(t, integ, exec, &platformapi.ListTaskStatusesParams{IncludeHistory: new(true)}), "a=running")
}
