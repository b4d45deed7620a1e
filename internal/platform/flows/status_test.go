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

// TestEveryOperationByStatus: each flows, flow-views and flow-invitations operation answers 401 without
// credentials, 422 for a malformed id or body, and 404 for another organization's private flow (and
// view) exactly like for a missing one.
func TestEveryOperationByStatus(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	outsider := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	anon, _ := env.Clients(t, "")
	f := createFlow(t, owner.API, "Mine", validDef, new(platformapi.Private))
	view, err := owner.API.CreateFlowViewWithResponse(ctx, platformapi.FlowViewCreateRequest{FlowId: f.Id, FlowVersion: 1,
		ViewName: "v", ViewData: platformapi.FlowViewData{}})
	testkit.Expect(t, view, err, http.StatusCreated)

	body := func(s string) *strings.Reader { return strings.NewReader(s) }
	const js = "application/json"
	// Each operation is called on a flow (or view) id with a valid body; bad is the same call made invalid.
	ops := map[string]struct {
		call func(c *platformapi.ClientWithResponses, flow, view uuid.UUID) (testkit.Reply, error)
		bad  func(c *platformapi.ClientWithResponses) (testkit.Reply, error)
	}{
		"createFlow": {func(c *platformapi.ClientWithResponses, _, _ uuid.UUID) (testkit.Reply, error) {
			return c.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "x", Definition: json.RawMessage(validDef)})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.CreateFlowWithBodyWithResponse(ctx, js, body(`{"display_name": 7, "definition": {}}`))
		}},
		"listFlows": {func(c *platformapi.ClientWithResponses, _, _ uuid.UUID) (testkit.Reply, error) {
			return c.ListFlowsWithResponse(ctx, nil)
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.ListFlowsWithResponse(ctx, &platformapi.ListFlowsParams{Limit: new(1000)})
		}},
		"getFlow": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.GetFlowWithResponse(ctx, flow, nil)
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{Version: new(0)})
		}},
		"updateFlow": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.UpdateFlowWithResponse(ctx, flow, platformapi.FlowUpdateRequest{Definition: json.RawMessage(validDef)})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.UpdateFlowWithBodyWithResponse(ctx, f.Id, js, body(`{"display_name": "x"}`))
		}},
		"modifyFlow": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.ModifyFlowWithResponse(ctx, flow, platformapi.PatchFlowRequest{DisplayName: new("y")})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.ModifyFlowWithBodyWithResponse(ctx, f.Id, js, body(`{"status": "archived"}`))
		}},
		"updateFlowDefinition": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.UpdateFlowDefinitionWithResponse(ctx, flow, platformapi.FlowDefinitionUpdate{Definition: json.RawMessage(validDef)})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.UpdateFlowDefinitionWithBodyWithResponse(ctx, f.Id, js, body(`{"definition": "x"}`))
		}},
		"listFlowVersions": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.ListFlowVersionsWithResponse(ctx, flow, nil)
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.ListFlowVersionsWithResponse(ctx, f.Id, &platformapi.ListFlowVersionsParams{Page: new(0)})
		}},
		"inviteFlowUsers": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.InviteFlowUsersWithResponse(ctx, flow, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{owner.UserID}})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.InviteFlowUsersWithBodyWithResponse(ctx, f.Id, js, body(`{"user_ids": []}`))
		}},
		"listFlowInvitations": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.ListFlowInvitationsWithResponse(ctx, flow)
		}, nil},
		"createFlowView": {func(c *platformapi.ClientWithResponses, flow, _ uuid.UUID) (testkit.Reply, error) {
			return c.CreateFlowViewWithResponse(ctx, platformapi.FlowViewCreateRequest{FlowId: flow, FlowVersion: 1, ViewName: uuid.NewString()})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.CreateFlowViewWithBodyWithResponse(ctx, js, body(`{"flow_id": "x", "flow_version": 1, "view_name": "v", "view_data": {}}`))
		}},
		"listFlowViews": {func(c *platformapi.ClientWithResponses, _, _ uuid.UUID) (testkit.Reply, error) {
			return c.ListFlowViewsWithResponse(ctx, nil)
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.ListFlowViewsWithResponse(ctx, &platformapi.ListFlowViewsParams{FlowVersion: new(0), FlowId: &f.Id})
		}},
		"getFlowView": {func(c *platformapi.ClientWithResponses, _, view uuid.UUID) (testkit.Reply, error) {
			return c.GetFlowViewWithResponse(ctx, view)
		}, nil},
		"updateFlowView": {func(c *platformapi.ClientWithResponses, _, view uuid.UUID) (testkit.Reply, error) {
			return c.UpdateFlowViewWithResponse(ctx, view, platformapi.FlowViewUpdateRequest{ViewName: new("w")})
		}, func(c *platformapi.ClientWithResponses) (testkit.Reply, error) {
			return c.UpdateFlowViewWithBodyWithResponse(ctx, view.JSON201.Id, js, body(`{"view_name": ""}`))
		}},
	}
	// Operations whose only input is an id: a malformed id is their 422.
	badID := map[string]string{"listFlowInvitations": "/api/flows/x/invitations", "getFlowView": "/api/flow-views/x",
		"deleteFlow": "/api/flows/x", "deleteFlowView": "/api/flow-views/x", "revokeFlowInvitation": "/api/flows/x/invitations/y"}
	for name, op := range ops {
		res, err := op.call(anon, f.Id, view.JSON201.Id)
		testkit.Expect(t, res, err, http.StatusUnauthorized)
		if op.bad != nil {
			res, err = op.bad(owner.API)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusUnprocessableEntity {
				t.Errorf("%s with bad input: %d %s", name, res.StatusCode(), testkit.Body(res))
			}
		}
		if name == "createFlow" || name == "listFlows" || name == "listFlowViews" {
			continue
		}
		hidden, err := op.call(outsider.API, f.Id, view.JSON201.Id)
		if err != nil {
			t.Fatal(err)
		}
		missing, err := op.call(outsider.API, uuid.New(), uuid.New())
		if err != nil {
			t.Fatal(err)
		}
		testkit.SameAsMissing(t, hidden, missing)
	}
	for name, path := range badID {
		method := http.MethodGet
		if strings.HasPrefix(name, "delete") || strings.HasPrefix(name, "revoke") {
			method = http.MethodDelete
		}
		req, _ := http.NewRequest(method, env.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+owner.Token)
		res, err := env.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s with a malformed id: %d", name, res.StatusCode)
		}
	}
	for name, call := range map[string]func(c *platformapi.ClientWithResponses, flow uuid.UUID) (testkit.Reply, error){
		"deleteFlowView": func(c *platformapi.ClientWithResponses, _ uuid.UUID) (testkit.Reply, error) {
			return c.DeleteFlowViewWithResponse(ctx, view.JSON201.Id)
		},
		"revokeFlowInvitation": func(c *platformapi.ClientWithResponses, flow uuid.UUID) (testkit.Reply, error) {
			return c.RevokeFlowInvitationWithResponse(ctx, flow, owner.UserID)
		},
		"deleteFlow": func(c *platformapi.ClientWithResponses, flow uuid.UUID) (testkit.Reply, error) {
			return c.DeleteFlowWithResponse(ctx, flow)
		},
	} {
		res, err := call(anon, f.Id)
		testkit.Expect(t, res, err, http.StatusUnauthorized)
		hidden, err := call(outsider.API, f.Id)
		if err != nil {
			t.Fatal(err)
		}
		if hidden.StatusCode() != http.StatusNotFound {
			t.Errorf("%s by another organization: %d", name, hidden.StatusCode())
		}
	}
}
