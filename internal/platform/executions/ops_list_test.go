package executions_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// runNumber reads an execution with include_run_number=true.
func runNumber(t testing.TB, c *testkit.Caller, id uuid.UUID) int {
	t.Helper()
	res, err := c.API.GetFlowExecutionWithResponse(ctx, id, &platformapi.GetFlowExecutionParams{IncludeRunNumber: new(true)})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.RunNumber == nil {
		t.Fatalf("%s has no run number with include_run_number=true", id)
	}
	return *res.JSON200.RunNumber
}

// TestRunNumbers: the executions of a flow are numbered 1, 2, 3… in creation order, per flow; a deleted
// one keeps its number and leaves a gap; only include_run_number=true fills the number.
func TestRunNumbers(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow, other := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization), testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	var xs []uuid.UUID
	for i := range 3 {
		xs = append(xs, start(t, user, flow, map[string]any{}).Id)
		if i == 0 {
			start(t, user, other, map[string]any{}) // interleaved: another flow counts on its own
		}
	}
	for i, id := range xs {
		if n := runNumber(t, user, id); n != i+1 {
			t.Fatalf("execution %d has run number %d", i+1, n)
		}
	}
	del, err := user.API.DeleteFlowExecutionWithResponse(ctx, xs[1])
	testkit.Expect(t, del, err, http.StatusNoContent)
	next := start(t, user, flow, map[string]any{}).Id
	if n, gone := runNumber(t, user, next), runNumber(t, user, xs[1]); n != 4 || gone != 2 {
		t.Fatalf("after deleting run 2 the next start got %d and the deleted one reads %d; want 4 and 2", n, gone)
	}

	res, err := user.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &flow, IncludeRunNumber: new(true)})
	testkit.Expect(t, res, err, http.StatusOK)
	got := map[uuid.UUID]int{}
	var order []uuid.UUID
	for _, x := range res.JSON200.FlowExecutions {
		order = append(order, x.Id)
		if x.RunNumber != nil {
			got[x.Id] = *x.RunNumber
		}
	}
	if !reflect.DeepEqual(order, []uuid.UUID{next, xs[2], xs[0]}) ||
		!reflect.DeepEqual(got, map[uuid.UUID]int{next: 4, xs[2]: 3, xs[0]: 1}) {
		t.Fatalf("listed %v with run numbers %v; want runs 4, 3, 1 newest first", order, got)
	}
	// Without the parameter, null in lists and reads.
	plainList, err := user.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowId: &flow})
	testkit.Expect(t, plainList, err, http.StatusOK)
	for _, x := range plainList.JSON200.FlowExecutions {
		if x.RunNumber != nil {
			t.Fatalf("run number %d listed without include_run_number", *x.RunNumber)
		}
	}
	for _, p := range []*platformapi.GetFlowExecutionParams{nil, {IncludeRunNumber: new(false)}} {
		g, err := user.API.GetFlowExecutionWithResponse(ctx, next, p)
		testkit.Expect(t, g, err, http.StatusOK)
		if g.JSON200.RunNumber != nil || !strings.Contains(string(g.Body), `"run_number":null`) {
			t.Fatalf("read without include_run_number: %s", g.Body)
		}
	}
}

// TestListFiltersAndPages: each filter and paging parameter selects exactly the executions documented,
// newest first; deleted executions are never listed.
func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	grant(t, env, org, 10)
	a := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	b := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [{"name": "t", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`,
		platformapi.Organization)
	a1, a2 := start(t, user, a, map[string]any{}), start(t, user, a, map[string]any{})
	upd, err := user.API.UpdateFlowDefinitionWithResponse(ctx, a, platformapi.FlowDefinitionUpdate{
		Definition: json.RawMessage(strings.Replace(waitDef, `"expression": "."`, `"expression": "{}"`, 1))})
	testkit.Expect(t, upd, err, http.StatusOK)
	a3 := start(t, user, a, map[string]any{})
	gone := start(t, user, a, map[string]any{})
	del, err := user.API.DeleteFlowExecutionWithResponse(ctx, gone.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)
	b1 := start(t, user, b, map[string]any{})
	stop, err := user.API.StopFlowExecutionWithResponse(ctx, a2.Id)
	testkit.Expect(t, stop, err, http.StatusOK)
	// A claimed attempt makes its execution running; the oldest waiting attempt goes first.
	for _, x := range []*platformapi.FlowExecutionResponse{a1, a3} {
		c, err := worker.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w", TaskNames: &[]string{"a"}})
		testkit.Expect(t, c, err, http.StatusOK)
		if c.JSON200.TaskExecution.FlowExecutionId != x.Id {
			t.Fatalf("claimed an attempt of %s, want %s", c.JSON200.TaskExecution.FlowExecutionId, x.Id)
		}
		testkit.WaitForExecution(t, user, x.Id, platformapi.ExecutionStatusRunning)
	}
	testkit.WaitForExecution(t, user, b1.Id, platformapi.ExecutionStatusCompleted)

	st := func(s platformapi.ExecutionStatus) *platformapi.ExecutionStatus { return &s }
	for name, c := range map[string]struct {
		p    platformapi.ListFlowExecutionsParams
		want []*platformapi.FlowExecutionResponse
	}{
		"all":                   {platformapi.ListFlowExecutionsParams{}, []*platformapi.FlowExecutionResponse{b1, a3, a2, a1}},
		"flow":                  {platformapi.ListFlowExecutionsParams{FlowId: &a}, []*platformapi.FlowExecutionResponse{a3, a2, a1}},
		"version 1":             {platformapi.ListFlowExecutionsParams{FlowId: &a, FlowVersion: new(1)}, []*platformapi.FlowExecutionResponse{a2, a1}},
		"version 2":             {platformapi.ListFlowExecutionsParams{FlowId: &a, FlowVersion: new(2)}, []*platformapi.FlowExecutionResponse{a3}},
		"version 2 of b":        {platformapi.ListFlowExecutionsParams{FlowId: &b, FlowVersion: new(2)}, nil},
		"running":               {platformapi.ListFlowExecutionsParams{Status: st(platformapi.ExecutionStatusRunning)}, []*platformapi.FlowExecutionResponse{a3, a1}},
		"failed":                {platformapi.ListFlowExecutionsParams{Status: st(platformapi.ExecutionStatusFailed)}, []*platformapi.FlowExecutionResponse{a2}},
		"completed":             {platformapi.ListFlowExecutionsParams{Status: st(platformapi.ExecutionStatusCompleted)}, []*platformapi.FlowExecutionResponse{b1}},
		"deleted":               {platformapi.ListFlowExecutionsParams{Status: st(platformapi.ExecutionStatusDeleted)}, nil},
		"created at or after":   {platformapi.ListFlowExecutionsParams{CreatedAfter: &a3.CreatedAt}, []*platformapi.FlowExecutionResponse{b1, a3}},
		"created before":        {platformapi.ListFlowExecutionsParams{CreatedBefore: &a3.CreatedAt}, []*platformapi.FlowExecutionResponse{a2, a1}},
		"running, flow, before": {platformapi.ListFlowExecutionsParams{FlowId: &a, Status: st(platformapi.ExecutionStatusRunning), CreatedBefore: &a3.CreatedAt}, []*platformapi.FlowExecutionResponse{a1}},
		"page 1 of 3":           {platformapi.ListFlowExecutionsParams{Limit: new(3)}, []*platformapi.FlowExecutionResponse{b1, a3, a2}},
		"page 2 of 3":           {platformapi.ListFlowExecutionsParams{Limit: new(3), Page: new(2)}, []*platformapi.FlowExecutionResponse{a1}},
		"page 3 of 3":           {platformapi.ListFlowExecutionsParams{Limit: new(3), Page: new(3)}, nil},
	} {
		ids, page := listIDs(t, user, c.p)
		want := []uuid.UUID{}
		for _, x := range c.want {
			want = append(want, x.Id)
		}
		total := len(want)
		if c.p.Limit != nil {
			total = 4 // the total counts every page
		}
		if !reflect.DeepEqual(ids, want) || page.Total != total || page.Limit != *orDefault(c.p.Limit, 20) || page.Page != *orDefault(c.p.Page, 1) {
			t.Errorf("%s: listed %v (total %d, page %d, limit %d), want %v (total %d)", name, ids, page.Total, page.Page, page.Limit, want, total)
		}
	}
	res, err := user.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowVersion: new(1), Status: st(platformapi.ExecutionStatusRunning)})
	testkit.Expect(t, res, err, http.StatusBadRequest)
}

func orDefault(p *int, d int) *int {
	if p == nil {
		return &d
	}
	return p
}
