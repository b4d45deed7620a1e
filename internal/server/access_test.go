package server_test

import (
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestPermissionTableCoversEveryOperation: the one permission table names each operation of both
// contracts exactly once, and nothing else; public operations are exactly those the contracts mark
// security: [].
func TestPermissionTableCoversEveryOperation(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, o := range operations(t) {
		seen[o.id] = true
		access, ok := auth.Permissions[o.id]
		if !ok {
			t.Errorf("%s (%s %s) is missing from auth.Permissions", o.id, o.method, o.path)
			continue
		}
		public := o.op.Security != nil && len(*o.op.Security) == 0
		if access.Public != public {
			t.Errorf("%s: table says public=%v, contract says %v", o.id, access.Public, public)
		}
		if !access.Public && !access.AnonKey && len(access.Roles) == 0 {
			t.Errorf("%s: no role may call it", o.id)
		}
	}
	var extra []string
	for id := range auth.Permissions {
		if !seen[id] {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("auth.Permissions names operations no contract has: %v", extra)
	}
}

// TestEachRoleGets403WhereItMayNot calls every secured operation as each role: a role the table does
// not allow gets 403, one it allows never does (it may still get 404 or 422 for the sample input).
func TestEachRoleGets403WhereItMayNot(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	callers := map[auth.Role]*testkit.Caller{}
	for _, r := range []auth.Role{auth.RoleOrgAdmin, auth.RoleBackoffice, auth.RoleAppUser, auth.RoleIntegration} {
		callers[r] = env.User(t, org, r)
	}
	forbidden := 0
	ops := operations(t)
	// logout ends the callers' sessions: it goes last so every other operation sees live tokens.
	sort.SliceStable(ops, func(i, j int) bool { return ops[j].id == "logout" && ops[i].id != "logout" })
	for _, o := range ops {
		access := auth.Permissions[o.id]
		if access.Public || access.AnonKey {
			continue
		}
		for role, c := range callers {
			req, err := http.NewRequest(strings.ToUpper(o.method), env.URL+samplePath(o.path, o.op, o.item), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+c.Token)
			res, err := env.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case !access.Allows(role) && res.StatusCode != http.StatusForbidden:
				t.Errorf("%s as %s: %d, want 403: %s", o.id, role, res.StatusCode, body)
			case access.Allows(role) && (res.StatusCode == http.StatusForbidden || res.StatusCode == http.StatusUnauthorized):
				// 403 from a service (ownership rules) is fine only with a sample input it cannot own; the
				// role gate itself must let the role through, which its message says.
				if strings.Contains(string(body), "role may not call") || res.StatusCode == http.StatusUnauthorized {
					t.Errorf("%s as %s: %d, want the role let through: %s", o.id, role, res.StatusCode, body)
				}
			}
			if !access.Allows(role) {
				forbidden++
			}
		}
	}
	t.Logf("%d (operation, role) pairs are forbidden and answered 403", forbidden)
}
