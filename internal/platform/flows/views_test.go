package flows_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestViews: views of a flow version, one default at a time, names unique per version, listed in order
// and hidden from other organizations.
func TestViews(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	outsider := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	f := createFlow(t, user.API, "Viewed", validDef, new(platformapi.Public))
	// Version 2 needs a definition of its own: saving the same one again is no new version.
	put, err := user.API.UpdateFlowDefinitionWithResponse(ctx, f.Id, platformapi.FlowDefinitionUpdate{
		Definition: json.RawMessage(strings.Replace(validDef, "Check the total.", "Check the sum.", 1))})
	testkit.Expect(t, put, err, http.StatusOK)

	create := func(c *testkit.Caller, version int, name string, isDefault bool, want int) *platformapi.FlowViewResponse {
		t.Helper()
		res, err := c.API.CreateFlowViewWithResponse(ctx, platformapi.FlowViewCreateRequest{FlowId: f.Id, FlowVersion: version,
			ViewName: name, ViewData: platformapi.FlowViewData{IsDefault: &isDefault, HiddenTasks: &[]string{"check"}}})
		testkit.Expect(t, res, err, want)
		return res.JSON201
	}
	a := create(user, 1, "reviewers", true, http.StatusCreated)
	if !*a.ViewData.IsDefault || len(*a.ViewData.OrderedTasks) != 0 || (*a.ViewData.HiddenTasks)[0] != "check" || a.FlowVersion != 1 {
		t.Fatalf("created %+v", a)
	}
	b := create(user, 1, "auditors", true, http.StatusCreated)
	create(user, 1, "auditors", false, http.StatusConflict)
	create(user, 2, "auditors", false, http.StatusCreated) // names are unique per version only
	create(user, 3, "future", false, http.StatusNotFound)
	create(outsider, 1, "foreign", false, http.StatusNotFound)

	got, err := user.API.GetFlowViewWithResponse(ctx, a.Id)
	testkit.Expect(t, got, err, http.StatusOK)
	if *got.JSON200.ViewData.IsDefault {
		t.Fatal("the first default kept its flag when a second view took it")
	}

	list, err := user.API.ListFlowViewsWithResponse(ctx, &platformapi.ListFlowViewsParams{FlowId: &f.Id, FlowVersion: new(1)})
	testkit.Expect(t, list, err, http.StatusOK)
	if l := list.JSON200; l.Total != 2 || l.FlowViews[0].Id != b.Id || l.FlowViews[1].Id != a.Id {
		t.Fatalf("views of version 1: %+v", l)
	}
	all, err := user.API.ListFlowViewsWithResponse(ctx, &platformapi.ListFlowViewsParams{FlowId: &f.Id})
	testkit.Expect(t, all, err, http.StatusOK)
	if l := all.JSON200; l.Total != 3 || l.FlowViews[0].FlowVersion != 2 {
		t.Fatalf("views of the flow: %+v", l)
	}
	bad, err := user.API.ListFlowViewsWithResponse(ctx, &platformapi.ListFlowViewsParams{FlowVersion: new(1)})
	testkit.Expect(t, bad, err, http.StatusBadRequest)
	foreign, err := outsider.API.ListFlowViewsWithResponse(ctx, nil)
	testkit.Expect(t, foreign, err, http.StatusOK)
	if foreign.JSON200.Total != 0 {
		t.Fatalf("another organization lists %d views", foreign.JSON200.Total)
	}

	upd, err := user.API.UpdateFlowViewWithResponse(ctx, a.Id, platformapi.FlowViewUpdateRequest{ViewName: new("auditors")})
	testkit.Expect(t, upd, err, http.StatusConflict)
	upd, err = user.API.UpdateFlowViewWithResponse(ctx, a.Id, platformapi.FlowViewUpdateRequest{ViewName: new("main"),
		ViewData: &platformapi.FlowViewData{IsDefault: new(true), OrderedTasks: &[]string{"review", "extract"}}})
	testkit.Expect(t, upd, err, http.StatusOK)
	if v := upd.JSON200; v.ViewName != "main" || !*v.ViewData.IsDefault || len(*v.ViewData.HiddenTasks) != 0 || (*v.ViewData.OrderedTasks)[0] != "review" {
		t.Fatalf("updated %+v", v)
	}
	if got, _ := user.API.GetFlowViewWithResponse(ctx, b.Id); *got.JSON200.ViewData.IsDefault {
		t.Fatal("two default views after an update")
	}

	missing, err := user.API.GetFlowViewWithResponse(ctx, uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []uuid.UUID{a.Id, b.Id} {
		res, err := outsider.API.GetFlowViewWithResponse(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		testkit.SameAsMissing(t, res, missing)
		dres, err := outsider.API.DeleteFlowViewWithResponse(ctx, id)
		testkit.Expect(t, dres, err, http.StatusNotFound)
	}
	dres, err := user.API.DeleteFlowViewWithResponse(ctx, a.Id)
	testkit.Expect(t, dres, err, http.StatusNoContent)
	dres, err = user.API.DeleteFlowViewWithResponse(ctx, a.Id)
	testkit.Expect(t, dres, err, http.StatusNotFound)
}
