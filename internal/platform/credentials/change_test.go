package credentials_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestUpdate: the creator renames and replaces the secret; the new secret is sealed (a new sealed value,
// not the plaintext) and never shown; a duplicate name is 409; bad data is 422 and changes nothing.
func TestUpdate(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	c := create(t, owner, "first", newSecret())
	create(t, owner, "taken", newSecret())
	sealed := func() (b []byte) {
		if err := env.DB.Get(&b, `SELECT sealed_secret FROM credentials WHERE id = $1`, c.Id); err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := sealed()

	secret := newSecret()
	res, err := owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{Name: new("renamed"),
		Data: &map[string]any{"api_key": secret}})
	testkit.Expect(t, res, err, http.StatusOK)
	noSecret(t, res.Body, secret)
	if u := res.JSON200; u.Name != "renamed" || u.Provider != "vendor_b" || !u.UpdatedAt.After(c.UpdatedAt) {
		t.Fatalf("updated %+v", u)
	}
	after := sealed()
	if string(after) == string(before) || strings.Contains(string(after), secret) {
		t.Fatal("the secret was not resealed, or is stored in clear")
	}

	res, err = owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{Name: new("taken")})
	testkit.Expect(t, res, err, http.StatusConflict)
	res, err = owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{Data: &map[string]any{"token": secret}})
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
	noSecret(t, res.Body, secret)
	res, err = owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{CredentialType: new(platformapi.CredentialTypeEnum("oauth2"))})
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
	res, err = owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{})
	testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
	if string(sealed()) != string(after) {
		t.Fatal("a refused update changed the secret")
	}
	// Only the fields sent change: a new type keeps the name and the secret.
	res, err = owner.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{CredentialType: new(platformapi.CredentialTypeEnum("vendor_b_receive"))})
	testkit.Expect(t, res, err, http.StatusOK)
	if u := res.JSON200; u.Name != "renamed" || *u.CredentialType != "vendor_b_receive" || string(sealed()) != string(after) {
		t.Fatalf("a type change touched more: %+v", u)
	}
}

// TestChangeRoles: another app_user may read but not change or delete; an org_admin may do both.
func TestChangeRoles(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	c := create(t, env.User(t, org, auth.RoleAppUser), "owned", newSecret())
	for _, role := range []auth.Role{auth.RoleAppUser, auth.RoleIntegration, auth.RoleBackoffice} {
		peer := env.User(t, org, role)
		got, err := peer.API.GetCredentialWithResponse(ctx, c.Id)
		testkit.Expect(t, got, err, http.StatusOK)
		res, err := peer.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{Name: new("mine")})
		testkit.Expect(t, res, err, http.StatusForbidden)
		del, err := peer.API.DeleteCredentialWithResponse(ctx, c.Id)
		testkit.Expect(t, del, err, http.StatusForbidden)
	}
	admin := env.User(t, org, auth.RoleOrgAdmin)
	res, err := admin.API.UpdateCredentialWithResponse(ctx, c.Id, platformapi.CredentialUpdateRequest{Name: new("admin's")})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.ModifiedBy != admin.UserID.String() {
		t.Fatalf("modified_by %q", res.JSON200.ModifiedBy)
	}
	del, err := admin.API.DeleteCredentialWithResponse(ctx, c.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)
	got, err := admin.API.GetCredentialWithResponse(ctx, c.Id)
	testkit.Expect(t, got, err, http.StatusNotFound)
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM credentials WHERE id = $1`, c.Id); err != nil || n != 0 {
		t.Fatalf("the row and its secret remain (%d, %v)", n, err)
	}
}

// TestAnotherOrganization: another organization's credential answers get, update and delete exactly
// like a random id, even for its org_admin, and stays untouched.
func TestAnotherOrganization(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	theirs := create(t, env.User(t, env.Org(t), auth.RoleOrgAdmin), "theirs", newSecret())
	me := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	random := uuid.New()

	g1, err := me.API.GetCredentialWithResponse(ctx, theirs.Id)
	testkit.Expect(t, g1, err, http.StatusNotFound)
	g2, _ := me.API.GetCredentialWithResponse(ctx, random)
	testkit.SameAsMissing(t, g1, g2)
	body := platformapi.CredentialUpdateRequest{Name: new("stolen")}
	u1, _ := me.API.UpdateCredentialWithResponse(ctx, theirs.Id, body)
	u2, _ := me.API.UpdateCredentialWithResponse(ctx, random, body)
	testkit.SameAsMissing(t, u1, u2)
	d1, _ := me.API.DeleteCredentialWithResponse(ctx, theirs.Id)
	d2, _ := me.API.DeleteCredentialWithResponse(ctx, random)
	testkit.SameAsMissing(t, d1, d2)
	if got, total := names(t, me, nil); total != 0 {
		t.Fatalf("another organization's credentials are listed: %v", got)
	}
	var name string
	if err := env.DB.Get(&name, `SELECT name FROM credentials WHERE id = $1`, theirs.Id); err != nil || name != "theirs" {
		t.Fatalf("their credential changed: %q %v", name, err)
	}
}

// TestDeleteInUse: a credential something refers to is refused with 409 in_use and kept. Nothing in
// loopwork refers to credentials yet (integrations and document files will), so a table of the test's
// own database stands in for them with the reference they are to declare.
func TestDeleteInUse(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	c := create(t, admin, "used", newSecret())
	if _, err := env.DB.Exec(`CREATE TABLE uses_credential (credential_id uuid REFERENCES credentials ON DELETE RESTRICT);
		INSERT INTO uses_credential VALUES ('` + c.Id.String() + `')`); err != nil {
		t.Fatal(err)
	}
	res, err := admin.API.DeleteCredentialWithResponse(ctx, c.Id)
	testkit.Expect(t, res, err, http.StatusConflict)
	if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "in_use" {
		t.Fatalf("error %+v, want code in_use", e)
	}
	got, err := admin.API.GetCredentialWithResponse(ctx, c.Id)
	testkit.Expect(t, got, err, http.StatusOK)
}
