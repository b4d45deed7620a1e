package credentials_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestSecretNeverLogged runs the real binary at debug level through creates, a refused create, a
// duplicate, an update and a delete, a SQL database's failing connection test, an e-mail service that
// refuses the connection, an http_request task that authenticates with a credential and fails, and a
// document import with a sql_query over it (which logs in as the organization's role), and greps
// everything it wrote for the secrets it was sent and for the role's password.
func TestSecretNeverLogged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	t.Parallel()
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	token := testkit.SeedCaller(t, db)
	p := testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), "LOOPWORK_LOG_LEVEL=debug",
		"LOOPWORK_OUTBOUND_ALLOW=127.0.0.0/8")
	api, err := platformapi.NewClientWithResponses(p.URL, platformapi.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{newSecret(), newSecret(), newSecret(), newSecret()}
	body := func(name string, data map[string]any) platformapi.CredentialCreateRequest {
		return platformapi.CredentialCreateRequest{Name: name, Provider: "vendor_b", CredentialType: "api_key", Data: &data}
	}
	c, err := api.CreateCredentialWithResponse(ctx, body("one", map[string]any{"api_key": secrets[0]}))
	testkit.Expect(t, c, err, http.StatusCreated)
	r, err := api.CreateCredentialWithResponse(ctx, body("one", map[string]any{"api_key": secrets[1]}))
	testkit.Expect(t, r, err, http.StatusConflict)
	r, err = api.CreateCredentialWithResponse(ctx, body("two", map[string]any{"api_key": secrets[2], "extra": secrets[2]}))
	testkit.Expect(t, r, err, http.StatusUnprocessableEntity)
	u, err := api.UpdateCredentialWithResponse(ctx, c.JSON201.Id, platformapi.CredentialUpdateRequest{Data: &map[string]any{"api_key": secrets[3]}})
	testkit.Expect(t, u, err, http.StatusOK)
	d, err := api.DeleteCredentialWithResponse(ctx, c.JSON201.Id)
	testkit.Expect(t, d, err, http.StatusNoContent)

	secrets = append(secrets, outsideSecrets(t, api, db)...)
	logs := p.Logs()
	if !strings.Contains(logs, "createCredential") && !strings.Contains(logs, "/api/credentials") {
		t.Fatalf("the server logged no request at debug level, so this test proves nothing:\n%s", logs)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Fatalf("the logs contain a secret:\n%s", logs)
		}
	}
}
