package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
)

// spoofed makes one request to a server process with a spoofed Host and X-Forwarded-* headers, as a
// tenant (or anyone) can, and answers its status.
func spoofed(t *testing.T, method, url, key string, body any) (int, string) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Host = "evil.example"
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

var mailedLink = regexp.MustCompile(`(\S+)/auth/verify\?type=(invite|recovery)&token=`)

// links answers the bases of the links mailed to an address.
func links(t *testing.T, db *sqlx.DB, to string) []string {
	t.Helper()
	var bodies []string
	deadline := time.Now().Add(5 * time.Second)
	for len(bodies) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if err := db.Select(&bodies, `SELECT text_body FROM mail_outbox WHERE recipient = $1 ORDER BY created_at`, to); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, b := range bodies {
		if m := mailedLink.FindStringSubmatch(b); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestLinksAndLogsRevealNothing starts real server processes and sends them requests with a spoofed
// Host and X-Forwarded-Host: invitation and recovery links are built from LOOPWORK_PUBLIC_URL, or
// without it from the listen address the server announced when it started, never from the request;
// and the access log shows no signed download token or link token.
func TestLinksAndLogsRevealNothing(t *testing.T) {
	t.Parallel()
	bin := testkit.BuildServer(t)
	for _, public := range []string{"", "https://loopwork.example/"} {
		db := testkit.DB(t)
		key := testkit.SeedCaller(t, db)
		addr := testkit.FreePort(t)
		env := []string{"LOOPWORK_LOG_LEVEL=info"}
		if public != "" {
			env = append(env, "LOOPWORK_PUBLIC_URL="+public)
		}
		proc := testkit.Serve(t, bin, testkit.DSN(t, db), addr, env...)
		want := "http://" + addr
		if public != "" {
			want = strings.TrimSuffix(public, "/")
		} else if !strings.Contains(proc.Logs(), "LOOPWORK_PUBLIC_URL is not set") || !strings.Contains(proc.Logs(), want) {
			t.Errorf("the start-up log does not say how links are built:\n%s", proc.Logs())
		}

		email := "grace@example.com"
		var org string
		if err := db.Get(&org, `SELECT id FROM organizations WHERE name = 'crash'`); err != nil {
			t.Fatal(err)
		}
		if st, b := spoofed(t, http.MethodPost, proc.URL+"/api/admin/users", key, map[string]any{
			"first_name": "Grace", "last_name": "Hopper", "email": email, "role": "app_user", "organization_id": org}); st != http.StatusCreated {
			t.Fatalf("create user: %d %s", st, b)
		}
		if st, b := spoofed(t, http.MethodPost, proc.URL+"/api/auth/resend-invite", key,
			map[string]any{"email": "admin@crash.test"}); st != http.StatusOK {
			t.Fatalf("resend (recovery): %d %s", st, b)
		}
		for _, to := range []string{email, "admin@crash.test"} {
			got := links(t, db, to)
			if len(got) != 1 || got[0] != want {
				t.Errorf("public URL %q: links mailed to %s start with %v, want %s", public, to, got, want)
			}
		}

		spoofed(t, http.MethodGet, proc.URL+"/api/storage/download/SIGNEDTOKEN0123456789", "", nil)
		spoofed(t, http.MethodGet, proc.URL+"/auth/verify?type=invite&token=LINKTOKEN0123456789", "", nil)
		time.Sleep(200 * time.Millisecond)
		logs := proc.Logs()
		for _, secret := range []string{"SIGNEDTOKEN0123456789", "LINKTOKEN0123456789"} {
			if strings.Contains(logs, secret) {
				t.Errorf("the log shows the token %s:\n%s", secret, logs)
			}
		}
		if !strings.Contains(logs, "/api/storage/download/REDACTED") || !strings.Contains(logs, "token=REDACTED") {
			t.Errorf("the access log does not show the redacted requests:\n%s", logs)
		}
	}
}
