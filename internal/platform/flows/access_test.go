package flows_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestVisibility: who sees private, organization and public flows, on reads and in lists; what may not
// be seen answers exactly like a missing flow.
func TestVisibility(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, otherOrg := env.Org(t), env.Org(t)
	creator := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	outsider := env.User(t, otherOrg, auth.RoleOrgAdmin)

	private := createFlow(t, creator.API, "Private", validDef, new(platformapi.Private))
	shared := createFlow(t, creator.API, "Shared", validDef, nil)
	public := createFlow(t, creator.API, "Public", validDef, new(platformapi.Public))

	missing, err := colleague.API.GetFlowWithResponse(ctx, uuid.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		who     *testkit.Caller
		flow    uuid.UUID
		visible bool
	}{
		{creator, private.Id, true}, {admin, private.Id, true}, {colleague, private.Id, false}, {outsider, private.Id, false},
		{colleague, shared.Id, true}, {outsider, shared.Id, false},
		{colleague, public.Id, true}, {outsider, public.Id, true},
	} {
		res, err := c.who.API.GetFlowWithResponse(ctx, c.flow, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.visible {
			testkit.Expect(t, res, nil, http.StatusOK)
		} else {
			testkit.SameAsMissing(t, res, missing)
		}
		vres, err := c.who.API.ListFlowVersionsWithResponse(ctx, c.flow, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (vres.StatusCode() == http.StatusOK) != c.visible {
			t.Errorf("versions of %s for %s: %d", c.flow, c.who.Role, vres.StatusCode())
		}
	}

	// A private flow of another user is missing for every write as well.
	for name, call := range map[string]func(id uuid.UUID) (testkit.Reply, error){
		"PATCH": func(id uuid.UUID) (testkit.Reply, error) {
			return colleague.API.ModifyFlowWithResponse(ctx, id, platformapi.PatchFlowRequest{DisplayName: new("mine now")})
		},
		"PUT definition": func(id uuid.UUID) (testkit.Reply, error) {
			return colleague.API.UpdateFlowDefinitionWithResponse(ctx, id, platformapi.FlowDefinitionUpdate{Definition: json.RawMessage(validDef)})
		},
		"DELETE": func(id uuid.UUID) (testkit.Reply, error) { return colleague.API.DeleteFlowWithResponse(ctx, id) },
		"invite": func(id uuid.UUID) (testkit.Reply, error) {
			return colleague.API.InviteFlowUsersWithResponse(ctx, id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{colleague.UserID}})
		},
		"views": func(id uuid.UUID) (testkit.Reply, error) {
			return colleague.API.CreateFlowViewWithResponse(ctx, platformapi.FlowViewCreateRequest{FlowId: id, FlowVersion: 1, ViewName: "v"})
		},
	} {
		hidden, err := call(private.Id)
		if err != nil {
			t.Fatal(err)
		}
		other, err := call(uuid.New())
		if err != nil {
			t.Fatal(err)
		}
		if hidden.StatusCode() != http.StatusNotFound || other.StatusCode() != http.StatusNotFound {
			t.Errorf("%s of another user's private flow: %d (a random id: %d)", name, hidden.StatusCode(), other.StatusCode())
		}
	}

	names := func(c *testkit.Caller, params *platformapi.ListFlowsParams) map[string]bool {
		t.Helper()
		res, err := c.API.ListFlowsWithResponse(ctx, params)
		testkit.Expect(t, res, err, http.StatusOK)
		out := map[string]bool{}
		for _, f := range res.JSON200.Flows {
			out[f.DisplayName] = true
		}
		if res.JSON200.Total != len(res.JSON200.Flows) {
			t.Errorf("total %d for %d flows", res.JSON200.Total, len(res.JSON200.Flows))
		}
		return out
	}
	if got := names(colleague, nil); len(got) != 2 || got["Private"] {
		t.Errorf("a colleague lists %v", got)
	}
	if got := names(creator, nil); len(got) != 3 {
		t.Errorf("the creator lists %v", got)
	}
	if got := names(admin, nil); len(got) != 3 {
		t.Errorf("an admin lists %v", got)
	}
	if got := names(outsider, nil); len(got) != 0 {
		t.Errorf("another organization lists %v", got)
	}
	if got := names(outsider, &platformapi.ListFlowsParams{Visibility: new(platformapi.Public)}); !got["Public"] || len(got) != 1 {
		t.Errorf("another organization lists public flows %v", got)
	}
	// An invitation opens a private flow to its guest.
	inv, err := creator.API.InviteFlowUsersWithResponse(ctx, private.Id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{colleague.UserID}})
	testkit.Expect(t, inv, err, http.StatusOK)
	if st, _ := getStatus(t, colleague.API, private.Id); st != http.StatusOK {
		t.Errorf("an invited user reads the private flow: %d", st)
	}
	if got := names(colleague, nil); !got["Private"] {
		t.Errorf("an invited user lists %v", got)
	}
}

// TestChangeRules: who may change, publish and delete a flow, by role, creation and invitation.
func TestChangeRules(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, otherOrg := env.Org(t), env.Org(t)
	creator := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	guest := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	robot := env.KeyCaller(t, org, auth.RoleIntegration)
	outsider := env.User(t, otherOrg, auth.RoleOrgAdmin)

	f := createFlow(t, creator.API, "Shared", validDef, new(platformapi.Public))
	inv, err := creator.API.InviteFlowUsersWithResponse(ctx, f.Id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{guest.UserID}})
	testkit.Expect(t, inv, err, http.StatusOK)

	patch := func(c *testkit.Caller, want int) {
		t.Helper()
		res, err := c.API.ModifyFlowWithResponse(ctx, f.Id, platformapi.PatchFlowRequest{Description: new("by " + string(c.Role) + c.UserID.String())})
		testkit.Expect(t, res, err, want)
		put, err := c.API.UpdateFlowDefinitionWithResponse(ctx, f.Id, platformapi.FlowDefinitionUpdate{Definition: json.RawMessage(validDef)})
		testkit.Expect(t, put, err, want)
	}
	patch(colleague, http.StatusForbidden)
	patch(outsider, http.StatusForbidden) // a public flow of another organization is read-only
	patch(robot, http.StatusForbidden)
	patch(guest, http.StatusOK)
	patch(admin, http.StatusOK)
	patch(creator, http.StatusOK)

	del := func(c *testkit.Caller, want int) {
		t.Helper()
		res, err := c.API.DeleteFlowWithResponse(ctx, f.Id)
		testkit.Expect(t, res, err, want)
	}
	del(guest, http.StatusForbidden)
	del(colleague, http.StatusForbidden)
	del(outsider, http.StatusForbidden)
	del(creator, http.StatusNoContent)
	if st, _ := getStatus(t, admin.API, f.Id); st != http.StatusNotFound {
		t.Fatalf("a deleted flow reads %d", st)
	}
	del(admin, http.StatusNotFound)

	// A service account may provision flows and change what it created.
	own := createFlow(t, robot.API, "Provisioned", validDef, nil)
	res, err := robot.API.ModifyFlowWithResponse(ctx, own.Id, platformapi.PatchFlowRequest{DisplayName: new("Provisioned again")})
	testkit.Expect(t, res, err, http.StatusOK)
	dres, err := robot.API.DeleteFlowWithResponse(ctx, own.Id)
	testkit.Expect(t, dres, err, http.StatusNoContent)
}

// TestDelete: a flow that still runs or that apps are bound to is kept; otherwise it goes with its
// versions, views and invitations, and its finished executions are soft-deleted.
func TestDelete(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	f := createFlow(t, admin.API, "Busy", validDef, nil)
	var running, finished uuid.UUID
	if err := env.DB.Get(&running, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		VALUES ($1, $2, 1, 'awaiting_input', 1) RETURNING id`, org, f.Id); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&finished, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		VALUES ($1, $2, 1, 'failed', 2) RETURNING id`, org, f.Id); err != nil {
		t.Fatal(err)
	}
	res, err := admin.API.DeleteFlowWithResponse(ctx, f.Id)
	testkit.Expect(t, res, err, http.StatusConflict)

	if _, err := env.DB.Exec(`UPDATE flow_executions SET status = 'completed' WHERE id = $1`, running); err != nil {
		t.Fatal(err)
	}
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'bound', $2) RETURNING id`, org, f.Id); err != nil {
		t.Fatal(err)
	}
	res, err = admin.API.DeleteFlowWithResponse(ctx, f.Id)
	testkit.Expect(t, res, err, http.StatusConflict)
	env.ChangeAccess(t, `DELETE FROM apps WHERE id = $1`, app)

	view, err := admin.API.CreateFlowViewWithResponse(ctx, platformapi.FlowViewCreateRequest{FlowId: f.Id, FlowVersion: 1,
		ViewName: "main", ViewData: platformapi.FlowViewData{}})
	testkit.Expect(t, view, err, http.StatusCreated)
	res, err = admin.API.DeleteFlowWithResponse(ctx, f.Id)
	testkit.Expect(t, res, err, http.StatusNoContent)

	var left struct {
		Live     int `db:"live"`
		Versions int `db:"versions"`
		Views    int `db:"views"`
	}
	if err := env.DB.Get(&left, `SELECT
		(SELECT count(*) FROM flow_executions WHERE flow_id = $1 AND (deleted_at IS NULL OR status <> 'deleted')) AS live,
		(SELECT count(*) FROM flow_versions WHERE flow_id = $1) AS versions,
		(SELECT count(*) FROM flow_views WHERE flow_id = $1) AS views`, f.Id); err != nil {
		t.Fatal(err)
	}
	if left.Live != 0 || left.Versions != 0 || left.Views != 0 {
		t.Fatalf("after delete: %+v", left)
	}
	vres, err := admin.API.GetFlowViewWithResponse(ctx, view.JSON201.Id)
	testkit.Expect(t, vres, err, http.StatusNotFound)
}
