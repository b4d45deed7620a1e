package integrations_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestIntegrationLifecycle: create, duplicate, list with filters, get, delete, and the credential it
// uses cannot be deleted meanwhile.
func TestIntegrationLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	flow, other := testkit.NewFlow(t, c, twoTasks), testkit.NewFlow(t, c, twoTasks)
	cred := newCredential(t, c, "vendor_b", "api_key", map[string]any{"api_key": "k-" + uuid.NewString()})

	first := integrate(t, c, flow, &cred, "fetch")
	if first.FlowId != flow || first.CredentialId == nil || *first.CredentialId != cred || first.Provider == nil ||
		*first.Provider != "vendor_b" || first.TaskName != "fetch" || first.ModifiedBy != c.UserID.String() {
		t.Fatalf("created %+v", first)
	}
	// The task need not exist yet, and no credential is fine.
	none := integrate(t, c, flow, nil, "later")
	if none.CredentialId != nil || none.Provider != nil {
		t.Fatalf("without credential: %+v", none)
	}
	third := integrate(t, c, other, &cred, "fetch")

	dup, err := c.API.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow, CredentialId: nil,
		Description: "", TaskName: "fetch"})
	testkit.Expect(t, dup, err, http.StatusConflict)

	list, err := c.API.ListIntegrationsWithResponse(ctx, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 3 || list.JSON200.Integrations[0].Id != third.Id {
		t.Fatalf("list newest first: %+v", list.JSON200)
	}
	byFlow, err := c.API.ListIntegrationsWithResponse(ctx, &platformapi.ListIntegrationsParams{FlowId: &flow})
	testkit.Expect(t, byFlow, err, http.StatusOK)
	byCred, err := c.API.ListIntegrationsWithResponse(ctx, &platformapi.ListIntegrationsParams{CredentialId: &cred, Limit: new(1)})
	testkit.Expect(t, byCred, err, http.StatusOK)
	if byFlow.JSON200.Total != 2 || byCred.JSON200.Total != 2 || len(byCred.JSON200.Integrations) != 1 {
		t.Fatalf("filters: by flow %d, by credential %d", byFlow.JSON200.Total, byCred.JSON200.Total)
	}

	inUse, err := c.API.DeleteCredentialWithResponse(ctx, cred)
	testkit.Expect(t, inUse, err, http.StatusConflict)
	if e := testkit.ErrorOf(t, inUse); e.Code == nil || *e.Code != "in_use" {
		t.Fatalf("credential delete: %+v", e)
	}
	got, err := c.API.GetIntegrationWithResponse(ctx, first.Id)
	testkit.Expect(t, got, err, http.StatusOK)
	for _, id := range []uuid.UUID{first.Id, third.Id} {
		del, err := c.API.DeleteIntegrationWithResponse(ctx, id)
		testkit.Expect(t, del, err, http.StatusNoContent)
	}
	again, err := c.API.DeleteIntegrationWithResponse(ctx, first.Id)
	testkit.Expect(t, again, err, http.StatusNotFound)
	freed, err := c.API.DeleteCredentialWithResponse(ctx, cred)
	testkit.Expect(t, freed, err, http.StatusNoContent)

	// A deleted flow takes its integrations out of sight.
	gone, err := c.API.DeleteFlowWithResponse(ctx, flow)
	testkit.Expect(t, gone, err, http.StatusNoContent)
	hidden, err := c.API.GetIntegrationWithResponse(ctx, none.Id)
	testkit.Expect(t, hidden, err, http.StatusNotFound)
}

// TestIntegrationTenancyAndRoles: another organization's flow, credential and integration answer like
// random ids; service accounts may bind tasks too.
func TestIntegrationTenancyAndRoles(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org, stranger := env.Org(t), env.Org(t)
	c := env.User(t, org, auth.RoleOrgAdmin)
	s := env.User(t, stranger, auth.RoleOrgAdmin)
	flow := testkit.NewFlow(t, c, twoTasks)
	cred := newCredential(t, c, "vendor_b", "api_key", map[string]any{"api_key": "k"})
	mine := integrate(t, c, flow, &cred, "fetch")

	theirFlow := testkit.NewFlow(t, s, twoTasks)
	theirCred := newCredential(t, s, "vendor_b", "api_key", map[string]any{"api_key": "k"})
	for _, req := range []platformapi.IntegrationCreateRequest{
		{FlowId: theirFlow, CredentialId: &cred, TaskName: "fetch"},
		{FlowId: flow, CredentialId: &theirCred, TaskName: "shape"},
	} {
		res, err := c.API.CreateIntegrationWithResponse(ctx, req)
		testkit.Expect(t, res, err, http.StatusNotFound)
	}
	missing, err := s.API.GetIntegrationWithResponse(ctx, uuid.New())
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, err := s.API.GetIntegrationWithResponse(ctx, mine.Id)
	testkit.SameAsMissing(t, hidden, missing)
	meta, err := s.API.GetIntegrationMetadataWithResponse(ctx, mine.Id)
	testkit.SameAsMissing(t, meta, missing)
	del, err := s.API.DeleteIntegrationWithResponse(ctx, mine.Id)
	testkit.Expect(t, del, err, http.StatusNotFound)
	list, err := s.API.ListIntegrationsWithResponse(ctx, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 0 {
		t.Fatalf("a stranger lists %d integrations", list.JSON200.Total)
	}

	robot := env.User(t, org, auth.RoleIntegration)
	res, err := robot.API.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow, TaskName: "shape"})
	testkit.Expect(t, res, err, http.StatusCreated)
	bad, err := c.API.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow, TaskName: ""})
	testkit.Expect(t, bad, err, http.StatusUnprocessableEntity)
}
