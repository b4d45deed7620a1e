package apikeys_test

import (
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestVisibility: people see and revoke their own keys, admins every key of their organization, and
// nobody a key of another organization; what a caller may not see is 404, like a missing key.
func TestVisibility(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	alice, bob := env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleAppUser)
	admin, stranger := env.User(t, org, auth.RoleOrgAdmin), env.User(t, other, auth.RoleOrgAdmin)
	otherBackoffice := env.User(t, other, auth.RoleBackoffice)

	a := create(t, alice.API, platformapi.ApiKeyCreateRequest{Name: "alice"})
	b := create(t, bob.API, platformapi.ApiKeyCreateRequest{Name: "bob"})

	if seen, total := list(t, alice.API, false); total != 1 || len(seen) != 1 || seen[a.Id].Id != a.Id {
		t.Fatalf("alice lists %d keys (total %d), want only hers", len(seen), total)
	}
	if seen, total := list(t, admin.API, false); total != 2 || len(seen) != 2 {
		t.Fatalf("the admin lists %d keys (total %d), want both", len(seen), total)
	}
	if _, total := list(t, stranger.API, false); total != 0 {
		t.Fatalf("another organization's admin lists %d keys", total)
	}
	for name, c := range map[string]*testkit.Caller{"bob": bob, "other org admin": stranger, "other org backoffice": otherBackoffice} {
		if st, _ := getStatus(t, c.API, a.Id); st != http.StatusNotFound {
			t.Fatalf("%s reads alice's key: %d, want 404", name, st)
		}
		if st := revokeStatus(t, c.API, a.Id); st != http.StatusNotFound {
			t.Fatalf("%s revokes alice's key: %d, want 404", name, st)
		}
	}
	if st, _ := getStatus(t, alice.API, [16]byte{1}); st != http.StatusNotFound {
		t.Fatalf("missing key: %d, want 404", st)
	}
	if st, _ := getStatus(t, admin.API, a.Id); st != http.StatusOK {
		t.Fatalf("the admin reads alice's key: %d", st)
	}
	// An admin may revoke any key of the organization.
	if st := revokeStatus(t, admin.API, b.Id); st != http.StatusNoContent {
		t.Fatalf("the admin revokes bob's key: %d", st)
	}
	bobKey, _ := env.Clients(t, b.Token)
	if st, _ := getStatus(t, bobKey, b.Id); st != http.StatusUnauthorized {
		t.Fatalf("bob's revoked key: %d, want 401", st)
	}
	if st, _ := getStatus(t, alice.API, a.Id); st != http.StatusOK {
		t.Fatalf("alice's key after bob's was revoked: %d", st)
	}
}

// TestRevoke: a key may revoke itself; it is refused from the next request on, on both interfaces;
// revoking again changes nothing; revoked keys stay readable and are listed only on request.
func TestRevoke(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	k := create(t, c.API, platformapi.ApiKeyCreateRequest{Name: "short-lived"})
	keep := create(t, c.API, platformapi.ApiKeyCreateRequest{Name: "kept"})

	keyAPI, keyV1 := env.Clients(t, k.Token)
	if st := v1Status(t, keyV1); st == http.StatusUnauthorized {
		t.Fatalf("/v1 before revocation: %d", st)
	}
	if st := revokeStatus(t, keyAPI, k.Id); st != http.StatusNoContent {
		t.Fatalf("a key revoking itself: %d, want 204", st)
	}
	if st, _ := getStatus(t, keyAPI, keep.Id); st != http.StatusUnauthorized {
		t.Fatalf("/api with the revoked key: %d, want 401", st)
	}
	if st := v1Status(t, keyV1); st != http.StatusUnauthorized {
		t.Fatalf("/v1 with the revoked key: %d, want 401", st)
	}

	st, first := getStatus(t, c.API, k.Id)
	if st != http.StatusOK || first.RevokedAt == nil || first.ModifiedBy != c.UserID.String() {
		t.Fatalf("reading the revoked key: %d %+v", st, first)
	}
	if st := revokeStatus(t, c.API, k.Id); st != http.StatusNoContent {
		t.Fatalf("revoking again: %d, want 204", st)
	}
	_, again := getStatus(t, c.API, k.Id)
	if !again.RevokedAt.Equal(*first.RevokedAt) || !again.UpdatedAt.Equal(first.UpdatedAt) {
		t.Fatalf("revoking again changed the key: %v → %v", first.RevokedAt, again.RevokedAt)
	}

	seen, total := list(t, c.API, false)
	if _, ok := seen[k.Id]; ok || total != 1 {
		t.Fatalf("default list shows the revoked key (total %d)", total)
	}
	seen, total = list(t, c.API, true)
	if _, ok := seen[k.Id]; !ok || total != 2 {
		t.Fatalf("include_revoked list misses the revoked key (total %d)", total)
	}
}

// TestListPaging: newest first, a page at a time, with the total over all pages.
func TestListPaging(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	var ids []platformapi.ApiKeyCreateResponse
	for _, n := range []string{"one", "two", "three"} {
		ids = append(ids, *create(t, c.API, platformapi.ApiKeyCreateRequest{Name: n}))
	}
	page := func(p int) *platformapi.ApiKeyListResponse {
		res, err := c.API.ListApiKeysWithResponse(ctx, &platformapi.ListApiKeysParams{Page: new(p), Limit: new(2)})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "list page", res.HTTPResponse, res.Body, http.StatusOK)
		return res.JSON200
	}
	p1, p2 := page(1), page(2)
	if p1.Total != 3 || p1.Page != 1 || p1.Limit != 2 || len(p1.ApiKeys) != 2 || len(p2.ApiKeys) != 1 {
		t.Fatalf("pages: %+v / %+v", p1, p2)
	}
	if p1.ApiKeys[0].Id != ids[2].Id || p1.ApiKeys[1].Id != ids[1].Id || p2.ApiKeys[0].Id != ids[0].Id {
		t.Fatal("keys are not listed newest first")
	}
	res, err := c.API.ListApiKeysWithResponse(ctx, &platformapi.ListApiKeysParams{Limit: new(101)})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "limit 101", res.HTTPResponse, res.Body, http.StatusUnprocessableEntity)
}
