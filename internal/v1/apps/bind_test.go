package apps_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

// TestBindToFlows: an app may be an instance of a flow of its organization or of a public flow, made
// through the flows routes, as long as the flow's latest version is valid; otherwise 400 names api_id.
func TestBindToFlows(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	stranger := env.User(t, other, auth.RoleOrgAdmin)
	newFlow := func(c *testkit.Caller, definition string, vis platformapi.FlowVisibility) uuid.UUID {
		t.Helper()
		res, err := c.API.CreateFlowWithResponse(context.Background(), platformapi.FlowCreateRequest{DisplayName: "flow",
			Definition: json.RawMessage(definition), Visibility: &vis})
		appstest.Expect(t, res, err, http.StatusCreated)
		return res.JSON201.Id
	}
	valid := `{"version": 1, "tasks": [{"name": "wait", "type": "delay", "parameters": {"seconds": 1}}], "edges": []}`
	invalid := `{"version": 1, "tasks": [{"name": "wait", "type": "nap"}], "edges": []}`

	own := newFlow(admin, valid, platformapi.Organization)
	public := newFlow(stranger, valid, platformapi.Public)
	create(t, admin, nil, v1api.AppInput{Name: new("own"), ApiId: nullable.NewNullableWithValue(own)})
	create(t, admin, nil, v1api.AppInput{Name: new("public"), ApiId: nullable.NewNullableWithValue(public)})

	for name, id := range map[string]uuid.UUID{
		"invalid":                newFlow(admin, invalid, platformapi.Organization),
		"another organization's": newFlow(stranger, valid, platformapi.Organization),
		"another organization's public but invalid": newFlow(stranger, invalid, platformapi.Public),
	} {
		res, err := admin.V1.CreateAppWithResponse(context.Background(), nil, v1api.AppInput{Name: new(name), ApiId: nullable.NewNullableWithValue(id)})
		appstest.Expect(t, res, err, http.StatusBadRequest)
		if e := appstest.ErrorOf(t, res); len(e.Details) == 0 || e.Details[0].Loc[1] != "api_id" {
			t.Errorf("%s: error %+v does not name api_id", name, e)
		}
	}
}
