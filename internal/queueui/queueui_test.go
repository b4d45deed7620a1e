package queueui_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// call sends a request to the UI with the bearer token (none when empty) and answers the status and
// the body.
func call(t testing.TB, method, url, token, body string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b, res.Header
}

type job struct {
	ID      int64  `json:"id"`
	Kind    string `json:"kind"`
	State   string `json:"state"`
	Attempt int    `json:"attempt"`
}

// discardedSweep inserts a job that ran out of attempts: a sweep of exports, harmless to run again.
func discardedSweep(t testing.TB, env *testkit.Env) int64 {
	t.Helper()
	var id int64
	if err := env.DB.Get(&id, `INSERT INTO river_job (kind, args, queue, state, attempt, attempted_at, scheduled_at,
		finalized_at, max_attempts, priority, errors)
		VALUES ('exports_sweep', '{}', 'default', 'discarded', 1, now(), now(), now(), 1, 1,
			ARRAY['{"at": "2026-01-01T00:00:00Z", "attempt": 1, "error": "the sweep failed", "trace": ""}'::jsonb])
		RETURNING id`); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestOperatorRetriesAJob: a backoffice user gets the UI's page, finds a discarded job through its
// JSON API, reads it, retries it, and River works it again to completion.
func TestOperatorRetriesAJob(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	id := discardedSweep(t, env)
	base := env.URL + "/admin/river"

	code, page, h := call(t, http.MethodGet, base+"/", staff.Token, "")
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page), "<title>River</title>") || !strings.Contains(string(page), "/admin/river/assets/") {
		t.Fatalf("the UI's page: %d %s\n%.400s", code, h.Get("Content-Type"), page)
	}
	// A page deeper in the single-page application is the same page, so links to it can be shared.
	if code, _, h := call(t, http.MethodGet, base+"/jobs?state=discarded", staff.Token, ""); code != http.StatusOK ||
		!strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("a page of the UI: %d %s", code, h.Get("Content-Type"))
	}

	code, body, _ := call(t, http.MethodGet, base+"/api/jobs?state=discarded", staff.Token, "")
	var list struct{ Data []job }
	if code != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Data) != 1 || list.Data[0].ID != id ||
		list.Data[0].Kind != "exports_sweep" {
		t.Fatalf("the discarded jobs: %d %s", code, body)
	}
	code, body, _ = call(t, http.MethodGet, fmt.Sprintf("%s/api/jobs/%d", base, id), staff.Token, "")
	var detail struct {
		job
		Errors []struct{ Error string } `json:"errors"`
	}
	if code != http.StatusOK || json.Unmarshal(body, &detail) != nil || len(detail.Errors) != 1 || detail.Errors[0].Error != "the sweep failed" {
		t.Fatalf("the job's detail: %d %s", code, body)
	}

	code, body, _ = call(t, http.MethodPost, base+"/api/jobs/retry", staff.Token, fmt.Sprintf(`{"ids": ["%d"]}`, id))
	if code != http.StatusOK {
		t.Fatalf("retry: %d %s", code, body)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var j job
		if err := env.DB.Get(&j, `SELECT id, kind, state, attempt FROM river_job WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if j.State == "completed" && j.Attempt == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the retried job is %s after %d attempts, 20 s later", j.State, j.Attempt)
		}
	}
}

// TestUIOnlyForBackoffice: without credentials the UI and its API answer 401, and other roles get 403
// — a retry among them, which leaves the job as it was.
func TestUIOnlyForBackoffice(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	id := discardedSweep(t, env)
	base := env.URL + "/admin/river"
	retry := fmt.Sprintf(`{"ids": ["%d"]}`, id)
	callers := map[string]string{
		"org_admin":       env.User(t, org, auth.RoleOrgAdmin).Token,
		"app_user":        env.User(t, org, auth.RoleAppUser).Token,
		"integration key": env.KeyCaller(t, org, auth.RoleIntegration).Token,
	}
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/", ""},
		{http.MethodGet, "/api/jobs?state=discarded", ""},
		{http.MethodPost, "/api/jobs/retry", retry},
	} {
		if code, body, _ := call(t, r.method, base+r.path, "", r.body); code != http.StatusUnauthorized {
			t.Errorf("%s %s without credentials: %d %s", r.method, r.path, code, body)
		}
		for name, token := range callers {
			code, body, _ := call(t, r.method, base+r.path, token, r.body)
			var e struct{ Error struct{ Code string } }
			if code != http.StatusForbidden || json.Unmarshal(body, &e) != nil || e.Error.Code != "forbidden" {
				t.Errorf("%s %s as %s: %d %s", r.method, r.path, name, code, body)
			}
		}
	}
	var state string
	if err := env.DB.Get(&state, `SELECT state FROM river_job WHERE id = $1`, id); err != nil || state != "discarded" {
		t.Fatalf("the job is %s after refused retries (%v)", state, err)
	}
}
