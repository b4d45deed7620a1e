package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestPrismContract runs a real server behind two Stoplight Prism proxies, one per document, and
// drives every operation of both documents through them: first a scenario that creates real
// resources and uses them as a client would, then one call of each operation the scenario left out.
// It fails on any response Prism finds not to match its document, and on any operation not called.
// Prism comes from the npm registry, so the test runs only when LOOPWORK_PRISM=1 (make contract-proxy
// and CI set it).
func TestPrismContract(t *testing.T) {
	if os.Getenv("LOOPWORK_PRISM") != "1" {
		t.Skip("set LOOPWORK_PRISM=1 to run the contract proxy test (needs npx)")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatal("LOOPWORK_PRISM=1 but npx is not installed")
	}
	// Inbound mail is on so that e-mail tasks can be created.
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.InboundSMTPAddr, c.InboundDomain = "127.0.0.1:0", "in.loopwork.test"
	}))
	apiProxy := startPrism(t, "platformapi", platformapi.OpenAPIJSON, env.URL)
	v1Proxy := startPrism(t, "v1api", v1api.OpenAPIJSON, env.URL)

	rec := newPrismRecorder(t, &testkit.ContractTransport{T: t})
	rec.route(t, "api", apiProxy.URL, platformapi.OpenAPIJSON)
	rec.route(t, "v1", v1Proxy.URL, v1api.OpenAPIJSON)
	client := &http.Client{Transport: rec}

	wrongAnswerIsCaught(t)

	org := env.Org(t)
	staff := env.User(t, org, auth.RoleBackoffice)
	base := map[string]string{"api": apiProxy.URL, "v1": v1Proxy.URL}
	s := &scenario{t: t, client: client, base: base, token: staff.Token, ids: knownIDs{}}
	s.identity(staff.Email, org)
	s.flows(staff.UserID)
	s.apps(staff.UserID)
	// Credentials and documents belong to people of the organization, not to platform staff.
	s.as(env.User(t, org, auth.RoleOrgAdmin).Token).data()
	sweep(t, rec, client, base, staff.Token, s.ids)
	rec.report(t, operations(t))
}

// wrongAnswerIsCaught makes sure the check can fail: a Prism in front of an upstream whose liveness
// answer has a number where the document says a string must report that answer.
func wrongAnswerIsCaught(t *testing.T) {
	t.Helper()
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-ID", "01M8EJQTVHYWBBT1CZHETF7C8T")
		_, _ = w.Write([]byte(`{"status": 7}`))
	}))
	defer wrong.Close()
	proxy := startPrism(t, "platformapi-wrong", platformapi.OpenAPIJSON, wrong.URL)
	rec := newPrismRecorder(t, http.DefaultTransport)
	rec.route(t, "api", proxy.URL, platformapi.OpenAPIJSON)
	res, err := (&http.Client{Transport: rec}).Get(proxy.URL + "/health/liveness")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(rec.wrong) != 1 || rec.wrong[0].op.id != "getLiveness" {
		t.Fatalf("Prism did not report a liveness answer off its schema: %+v", rec.wrong)
	}
}
