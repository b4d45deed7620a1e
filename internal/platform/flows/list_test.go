package flows_test

import (
	"net/http"
	"testing"

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
	res, err := user.API.ModifyFlowWithResponse(ctx, a.Id, platformapi.PatchFlowRequest{Status: ptr(platformapi.Published),
		Description: ptr("Reads INVOICES and bills")})
	expect(t, res, err, http.StatusOK)

	list := func(p platformapi.ListFlowsParams) ([]string, int) {
		t.Helper()
		res, err := user.API.ListFlowsWithResponse(ctx, &p)
		expect(t, res, err, http.StatusOK)
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
	if names, total := list(platformapi.ListFlowsParams{Status: ptr(platformapi.Published)}); total != 1 || names[0] != "Invoice reader" {
		t.Errorf("published: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: ptr("invoices")}); len(names) != 1 {
		t.Errorf("search in descriptions: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: ptr("0%")}); len(names) != 1 || names[0] != c.DisplayName {
		t.Errorf("a literal %%: %v", names)
	}
	if names, _ := list(platformapi.ListFlowsParams{Search: ptr("_")}); len(names) != 0 {
		t.Errorf("a literal _: %v", names)
	}
	names, total := list(platformapi.ListFlowsParams{Limit: ptr(2), Page: ptr(2)})
	if total != 3 || len(names) != 1 || names[0] != "Receipts" {
		t.Errorf("page 2 of 2: %v (%d)", names, total)
	}
	if names, total := list(platformapi.ListFlowsParams{Page: ptr(9)}); total != 3 || len(names) != 0 {
		t.Errorf("a page past the end: %v (%d)", names, total)
	}
}
