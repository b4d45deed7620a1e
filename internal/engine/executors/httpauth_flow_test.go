package executors_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestHTTPRequestWithACredential: an api_key credential is sent as a bearer token, a username and
// password as basic auth, a header of the task's own wins, and a credential that cannot authenticate a
// request fails the task without a request. (Another organization's credential is refused when the flow
// is saved; the server tests of credential rights cover it.)
func TestHTTPRequestWithACredential(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	env := testkit.NewEnv(t, testkit.WithOutboundClient(allowLoopback()))
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 20); err != nil {
		t.Fatal(err)
	}
	cred := func(c *testkit.Caller, provider platformapi.ProviderApiEnum, typ platformapi.CredentialTypeEnum, data map[string]any) string {
		res, err := c.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: uuid.NewString(),
			Provider: provider, CredentialType: typ, Data: &data})
		testkit.Expect(t, res, err, http.StatusCreated)
		return res.JSON201.Id.String()
	}
	task := func(cred, headers string) string {
		return fmt.Sprintf(`{"name": "q", "type": "http_request", "parameters": {"url": %q, "credential_id": %q, "headers": {%s}}}`,
			srv.URL, cred, headers)
	}
	key := cred(c, "vendor_b", "api_key", map[string]any{"api_key": "k-123"})
	basic := cred(c, "sql_database", "user_password", map[string]any{"host": "h", "database": "d", "username": "ann", "password": "pw"})
	oauth := cred(c, "vendor_a_client_secret", "client_credentials", map[string]any{"client_id": "i", "client_secret": "s"})
	for _, tc := range []struct{ task, status, auth string }{
		{task(key, ""), "completed", "Bearer k-123"},
		{task(basic, ""), "completed", "Basic YW5uOnB3"},
		{task(key, `"Authorization": "Token mine"`), "completed", "Token mine"},
		{task(oauth, ""), "failed", ""},
	} {
		x := runAs(t, env, c, tc.task)
		atts := attemptsOf(t, env, x, "q")
		if len(atts) != 1 || atts[0].Status != tc.status {
			t.Fatalf("%s: %+v", tc.task, atts)
		}
		if tc.status == "failed" {
			if !strings.Contains(string(atts[0].Error), "credential_id") {
				t.Fatalf("%s: %s", tc.task, atts[0].Error)
			}
			continue
		}
		if got := <-seen; got != tc.auth {
			t.Fatalf("%s: Authorization %q, want %q", tc.task, got, tc.auth)
		}
	}
	if len(seen) != 0 {
		t.Fatal("a failed task sent a request")
	}
}
