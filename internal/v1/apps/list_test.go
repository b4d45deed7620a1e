package apps_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func names(items []v1api.App) []string {
	out := []string{}
	for _, a := range items {
		out = append(out, a.Name)
	}
	return out
}

func TestListApps(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	user := env.User(t, org, auth.RoleAppUser)
	flow := appstest.Flow(t, env.DB, org, "Old name", flowDef)
	appstest.RenameFlow(t, env.DB, flow, "Receipt Pipeline")
	ctx := context.Background()

	create(t, admin, nil, v1api.AppInput{Name: new("alpha"), Description: nullable.NewNullableWithValue("100% Sure")})
	create(t, admin, nil, v1api.AppInput{Name: new("Bravo"), ApiId: nullable.NewNullableWithValue(flow), Status: new(v1api.AppStatus("PAUSED"))})
	direct := create(t, admin, nil, v1api.AppInput{Name: new("charlie"), Status: new(v1api.AppStatus("ARCHIVED"))})
	viaGroup := create(t, admin, nil, v1api.AppInput{Name: new("delta")})
	create(t, user, nil, v1api.AppInput{Name: new("echo")})
	appstest.App(t, env.DB, other, "foreign", nil)
	appstest.Member(t, env.DB, direct.Id, user.UserID, "LABELER")
	appstest.GroupOnApp(t, env.DB, viaGroup.Id, appstest.Group(t, env.DB, org, "g", user.UserID), "REVIEWER")

	list := func(c *testkit.Caller, p v1api.ListAppsParams) v1api.AppsReturn {
		t.Helper()
		res, err := c.V1.ListAppsWithResponse(ctx, &p)
		appstest.Expect(t, res, err, http.StatusOK)
		return *res.JSON200
	}
	for name, c := range map[string]struct {
		caller *testkit.Caller
		params v1api.ListAppsParams
		want   []string
	}{
		"organization-wide role sees every app of its organization": {admin, v1api.ListAppsParams{SortBy: new(v1api.ListAppsParamsSortBy("name"))},
			[]string{"alpha", "Bravo", "charlie", "delta", "echo"}},
		"an app_user sees what it owns or is a member of": {user, v1api.ListAppsParams{SortBy: new(v1api.ListAppsParamsSortBy("name")),
			OrderBy: new(v1api.ListAppsParamsOrderBy("desc"))}, []string{"echo", "delta", "charlie"}},
		"statusIn": {admin, v1api.ListAppsParams{StatusIn: &[]v1api.ListAppsParamsStatusIn{"PAUSED", "ARCHIVED"},
			SortBy: new(v1api.ListAppsParamsSortBy("name"))}, []string{"Bravo", "charlie"}},
		"searchTerm matches name or description in any case, % is literal": {admin, v1api.ListAppsParams{SearchTerm: new("0% SU")}, []string{"alpha"}},
		"searchTerm on the name":                    {admin, v1api.ListAppsParams{SearchTerm: new("RAV")}, []string{"Bravo"}},
		"workflowName uses the flow's current name": {admin, v1api.ListAppsParams{WorkflowName: new("receipt")}, []string{"Bravo"}},
		"workflowName does not match an old name":   {admin, v1api.ListAppsParams{WorkflowName: new("old")}, []string{}},
		"paging": {admin, v1api.ListAppsParams{SortBy: new(v1api.ListAppsParamsSortBy("name")), Page: new(1), Size: new(2)}, []string{"charlie", "delta"}},
	} {
		got := list(c.caller, c.params)
		if g := names(got.Items); fmt.Sprint(g) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", name, g, c.want)
		}
	}

	all := list(admin, v1api.ListAppsParams{SortBy: new(v1api.ListAppsParamsSortBy("name")), Page: new(1), Size: new(2)})
	if all.Total != 5 || all.Page != 1 || all.Size != 2 {
		t.Errorf("paging fields %+v", all)
	}
	def := list(admin, v1api.ListAppsParams{})
	if def.Page != 0 || def.Size != 10 || len(def.Items) != 5 || def.Items[0].JobStats != nil || def.Items[0].SuperTasks != nil {
		t.Errorf("defaults: %+v", def)
	}
	for _, a := range list(admin, v1api.ListAppsParams{WorkflowName: new("receipt")}).Items {
		if a.ApiName == nil || *a.ApiName != "Receipt Pipeline" {
			t.Errorf("api_name %v", a.ApiName)
		}
	}

	res, err := admin.V1.ListAppsWithResponse(ctx, &v1api.ListAppsParams{Size: new(0)})
	appstest.Expect(t, res, err, http.StatusBadRequest)
	res, err = env.V1.ListAppsWithResponse(ctx, &v1api.ListAppsParams{})
	appstest.Expect(t, res, err, http.StatusUnauthorized)
}
