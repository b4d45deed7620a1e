package queueui_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// browser is a client that keeps cookies and shows redirects instead of following them.
func browser(t testing.TB) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t testing.TB, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func signIn(t testing.TB, c *http.Client, base, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/admin/signin", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, c, req)
}

// TestBrowserSignIn: a browser that opens the UI without credentials is sent to the sign-in page; a
// backoffice user's credential entered there is kept in a cookie only the operators' pages get, and
// the UI and its API then answer with that cookie alone. Another role's credential sets no cookie.
func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	id := discardedSweep(t, env)
	b := browser(t)

	page, _ := http.NewRequest(http.MethodGet, env.URL+"/admin/river/", nil)
	page.Header.Set("Accept", "text/html,application/xhtml+xml")
	if res, _ := do(t, b, page); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/signin" {
		t.Fatalf("the UI without credentials: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	form, _ := http.NewRequest(http.MethodGet, env.URL+"/admin/signin", nil)
	if res, body := do(t, b, form); res.StatusCode != http.StatusOK || !strings.Contains(body, `name="token"`) {
		t.Fatalf("the sign-in page: %d\n%s", res.StatusCode, body)
	}

	for _, c := range []struct {
		name, token string
		want        int
	}{
		{"app_user", env.User(t, org, auth.RoleAppUser).Token, http.StatusForbidden},
		{"a made-up key", "lw_not_a_key", http.StatusUnauthorized},
	} {
		res, _ := signIn(t, b, env.URL, c.token)
		if res.StatusCode != c.want || len(res.Cookies()) != 0 {
			t.Errorf("signing in with %s: %d, cookies %v", c.name, res.StatusCode, res.Cookies())
		}
	}

	res, _ := signIn(t, b, env.URL, env.KeyCaller(t, org, auth.RoleBackoffice).Token)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/river/" || len(res.Cookies()) != 1 {
		t.Fatalf("signing in as backoffice: %d to %q, cookies %v", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
	ck := res.Cookies()[0]
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/admin" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/admin", ck)
	}
	if res, body := do(t, b, page); res.StatusCode != http.StatusOK || !strings.Contains(body, "<title>River</title>") {
		t.Fatalf("the UI after signing in: %d\n%.300s", res.StatusCode, body)
	}
	list, _ := http.NewRequest(http.MethodGet, env.URL+"/admin/river/api/jobs?state=discarded", nil)
	if res, body := do(t, b, list); res.StatusCode != http.StatusOK || !strings.Contains(body, `"kind":"exports_sweep"`) {
		t.Fatalf("the job list after signing in (job %d): %d %s", id, res.StatusCode, body)
	}
}
