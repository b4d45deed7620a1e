package flows_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestListFilters: status, search (case-insensitive, wildcards taken literally), paging and order.
func TestListFilters(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	a := createFlow(t, user.API, "Invoice reader", validDef, nil)
	createFlow(t, user.API, "Receipts", validDef, nil)
	c := createFlow(t, user.API, "100% sure", validDef, nil)
	res, err := user.API.ModifyFlowWithResponse(ctx, a.Id, platformapi.PatchFlowRequest{Status: new(platformapi.Published),
		Description: new("Reads INVOICES and bills")})
	testkit.Expect(t, res, err, http.StatusOK)

	list := func(p platformapi.ListFlowsParams) ([]string, int) {
		t.Helper()
		res, err := user.API.ListFlowsWithResponse(ctx, &p)
		testkit.Expect(t, res, err, http.StatusOK)
		var names []string
		for _, f := range res.JSON200.Flows {
			names = append(names, f.DisplayName)
			if f.TaskNames != nil || f.ValidationErrors != nil || !f.IsLatest {
				t.Errorf("a listed flow carries expansions or is not the latest: %+v", f)
			}
		}
		return names, res.JSON200.Total
	}
	if names, total := list(platformapi.ListFlowsParams{}); total != 3 || names[0] != "Invoice reader" || names[1] != "100% sure" {
		t.Errorf("all flows, last updated first: %v (%d)", names, total)
	}
	if names, total := list(platformapi.ListFlowsParams{Status: new(platformapi.Published)}); total != 1 || names[0] != "Invoice reader" {
		t.Errorf("published: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: new("invoices")}); len(names) != 1 {
		t.Errorf("search in descriptions: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: new("0%")}); len(names) != 1 || names[0] != c.DisplayName {
		t.Errorf("a literal %%: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: new("_")}); len(names) != 0 {
		t.Errorf("a literal _: %v", names)
	}
	names, total := list(platformapi.ListFlowsParams{Limit: new(2), Page: new(2)})
	if total != 3 || len(names) != 1 || names[0] != "Receipts" {
		t.Errorf("page 2 of 2: %v (%d)", names, total)
	}
	if names, total := list(platformapi.ListFlowsParams{Page: new(9)}); total != 3 || len(names) != 0 {
		t.Errorf("a page past the end: %v (%d)", names, total)
	}
}

// TestCountsFollowFlows: the kept counts that list totals come from agree with the flows themselves
// after creation, changes of status and visibility, and deletion, and so do the totals of every caller.
func TestCountsFollowFlows(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	user := env.User(t, org, auth.RoleAppUser)
	a := createFlow(t, user.API, "a", validDef, new(platformapi.Private))
	b := createFlow(t, admin.API, "b", validDef, new(platformapi.Private))
	c := createFlow(t, admin.API, "c", validDef, nil)
	createFlow(t, admin.API, "d", validDef, new(platformapi.Public))
	res, err := admin.API.ModifyFlowWithResponse(ctx, c.Id, platformapi.PatchFlowRequest{Status: new(platformapi.Published), Visibility: new(platformapi.Public)})
	testkit.Expect(t, res, err, http.StatusOK)
	inv, err := admin.API.InviteFlowUsersWithResponse(ctx, b.Id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{user.UserID}})
	testkit.Expect(t, inv, err, http.StatusOK)
	del, err := user.API.DeleteFlowWithResponse(ctx, a.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)

	var drift int
	if err := env.DB.Get(&drift, `SELECT count(*) FROM (
		SELECT organization_id, visibility, status, count(*) AS n FROM flows WHERE deleted_at IS NULL GROUP BY 1, 2, 3) truth
		FULL JOIN (SELECT * FROM flow_counts WHERE n <> 0) kept USING (organization_id, visibility, status)
		WHERE truth.n IS DISTINCT FROM kept.n`); err != nil {
		t.Fatal(err)
	}
	if drift != 0 {
		t.Fatalf("%d kept counts differ from the flows", drift)
	}
	for _, cse := range []struct {
		who    *testkit.Caller
		params platformapi.ListFlowsParams
		want   int
	}{
		{admin, platformapi.ListFlowsParams{}, 3},
		{user, platformapi.ListFlowsParams{}, 3}, // b through the invitation, c and d
		{user, platformapi.ListFlowsParams{Visibility: new(platformapi.Private)}, 1},
		{user, platformapi.ListFlowsParams{Status: new(platformapi.Published)}, 1},
		{admin, platformapi.ListFlowsParams{Visibility: new(platformapi.Public), Status: new(platformapi.Draft)}, 1},
	} {
		res, err := cse.who.API.ListFlowsWithResponse(ctx, &cse.params)
		testkit.Expect(t, res, err, http.StatusOK)
		if res.JSON200.Total != cse.want || len(res.JSON200.Flows) != cse.want {
			t.Errorf("%s %+v: total %d, %d flows, want %d", cse.who.Role, cse.params, res.JSON200.Total, len(res.JSON200.Flows), cse.want)
		}
	}
}
