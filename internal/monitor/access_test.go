package monitor_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// status requests url with the bearer token (none when empty) and answers the status and, for an
// error, its ErrorResponse code.
func status(t testing.TB, url, token string) (int, string) {
	t.Helper()
	res := fetch(t, url, token)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if res.StatusCode >= 400 {
		_ = json.Unmarshal(b, &e)
	}
	return res.StatusCode, e.Error.Code
}

// TestMetricsOnlyForBackoffice: on the main listener /metrics answers backoffice users (with a session
// or an API key) and refuses everyone else as an operation would: 401 without valid credentials, 403
// for every other role.
func TestMetricsOnlyForBackoffice(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	url := env.URL + "/metrics"
	get(t, url, env.User(t, org, auth.RoleBackoffice).Token)
	get(t, url, env.KeyCaller(t, org, auth.RoleBackoffice).Token)

	for _, c := range []struct {
		name, token string
		want        int
		code        string
	}{
		{"no credentials", "", http.StatusUnauthorized, "unauthorized"},
		{"a forged token", "eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl", http.StatusUnauthorized, "unauthorized"},
		{"org_admin", env.User(t, org, auth.RoleOrgAdmin).Token, http.StatusForbidden, "forbidden"},
		{"app_user", env.User(t, org, auth.RoleAppUser).Token, http.StatusForbidden, "forbidden"},
		{"integration key", env.KeyCaller(t, org, auth.RoleIntegration).Token, http.StatusForbidden, "forbidden"},
	} {
		if got, code := status(t, url, c.token); got != c.want || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, got, code, c.want, c.code)
		}
	}
}

// TestMetricsOnTheirOwnAddress: with LOOPWORK_METRICS_ADDR, /metrics is served there without
// credentials, that address serves nothing else, and the main listener no longer has /metrics.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" }))
	org := env.Org(t)
	staff, admin := env.User(t, org, auth.RoleBackoffice), env.User(t, org, auth.RoleOrgAdmin)
	addr := env.Server.MetricsAddr()
	if addr == "" {
		t.Fatal("no metrics listener")
	}
	res, err := admin.V1.ListAppsWithResponse(t.Context(), nil)
	testkit.Expect(t, res, err, http.StatusOK)
	s := get(t, "http://"+addr+"/metrics", "")
	if v := s.must(t, "loopwork_http_requests_total", map[string]string{"operation": "listApps", "code": "200"}); v != 1 {
		t.Errorf("listApps counted %v times, want 1", v)
	}
	for _, path := range []string{"/", "/health/liveness", "/v1/apps", "/admin/river/"} {
		if got, _ := status(t, "http://"+addr+path, staff.Token); got != http.StatusNotFound {
			t.Errorf("the metrics address answers %s with %d", path, got)
		}
	}
	if got, _ := status(t, env.URL+"/metrics", staff.Token); got != http.StatusNotFound {
		t.Errorf("the main listener answers /metrics with %d, want 404", got)
	}
}
