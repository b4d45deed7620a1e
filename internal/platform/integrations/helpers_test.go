package integrations_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

const twoTasks = `{"version":1,"tasks":[{"name":"fetch","type":"http_request","parameters":{"url":"https://example.com"}},
	{"name":"shape","type":"transform","parameters":{"expression":"."}}],"edges":[{"source":"fetch","target":"shape"}]}`

// newCredential stores a credential of provider with data and returns its id.
func newCredential(t testing.TB, c *testkit.Caller, provider platformapi.ProviderApiEnum, typ platformapi.CredentialTypeEnum, data map[string]any) uuid.UUID {
	t.Helper()
	res, err := c.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "c-" + uuid.NewString(),
		Provider: provider, CredentialType: typ, Data: &data})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

func integrate(t testing.TB, c *testkit.Caller, flow uuid.UUID, cred *uuid.UUID, task string) platformapi.IntegrationResponse {
	t.Helper()
	res, err := c.API.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow, CredentialId: cred,
		Description: "for " + task, TaskName: task})
	testkit.Expect(t, res, err, http.StatusCreated)
	return *res.JSON201
}
