package credentials_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	sealing "github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCreateSealsTheSecret: a credential is created without its secret in the answer, the column holds
// only the sealed value, and reads never show it.
func TestCreateSealsTheSecret(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	secret := newSecret()

	c := create(t, user, "billing", secret)
	if c.Name != "billing" || c.Provider != "vendor_b" || c.CredentialType == nil || *c.CredentialType != "api_key" ||
		c.UserId == nil || *c.UserId != user.UserID || c.ModifiedBy != user.UserID.String() {
		t.Fatalf("created %+v", c)
	}
	var sealed []byte
	if err := env.DB.Get(&sealed, `SELECT sealed_secret FROM credentials WHERE id = $1`, c.Id); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || strings.Contains(string(sealed), secret) || strings.Contains(string(sealed), "api_key") {
		t.Fatalf("the column holds the secret in clear: %q", sealed)
	}
	// It is AES-GCM under the server's key, bound to its organization and id.
	box, err := sealing.NewBox(env.Config.EncryptionKeyBytes())
	if err != nil {
		t.Fatal(err)
	}
	plain, err := box.Open(sealed, append(org[:], c.Id[:]...))
	if err != nil || string(plain) != `{"api_key":"`+secret+`"}` {
		t.Fatalf("the sealed value does not open to the secret: %v", err)
	}
	stranger := uuid.New()
	if _, err := box.Open(sealed, append(stranger[:], c.Id[:]...)); err == nil {
		t.Fatal("the sealed value opens outside its organization")
	}
	var row string
	if err := env.DB.Get(&row, `SELECT to_jsonb(c)::text FROM credentials c WHERE id = $1`, c.Id); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(row, secret) {
		t.Fatal("the row holds the secret in clear")
	}
	got, err := user.API.GetCredentialWithResponse(ctx, c.Id)
	testkit.Expect(t, got, err, http.StatusOK)
	noSecret(t, got.Body, secret)
	if got.JSON200.Id != c.Id || got.JSON200.Name != "billing" {
		t.Fatalf("read back %+v", got.JSON200)
	}
	list, err := user.API.ListCredentialsWithResponse(ctx, &platformapi.ListCredentialsParams{})
	testkit.Expect(t, list, err, http.StatusOK)
	noSecret(t, list.Body, secret)
}

// TestCreateRoles: org_admin, app_user and integration may create; backoffice may not; nobody
// unauthenticated may.
func TestCreateRoles(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	for _, role := range []auth.Role{auth.RoleOrgAdmin, auth.RoleAppUser, auth.RoleIntegration} {
		create(t, env.User(t, org, role), "by "+string(role), newSecret())
	}
	body := platformapi.CredentialCreateRequest{Name: "x", Provider: "vendor_b", CredentialType: "api_key",
		Data: &map[string]any{"api_key": "k"}}
	res, err := env.User(t, org, auth.RoleBackoffice).API.CreateCredentialWithResponse(ctx, body)
	testkit.Expect(t, res, err, http.StatusForbidden)
	anon, _ := env.Clients(t, "")
	res, err = anon.CreateCredentialWithResponse(ctx, body)
	testkit.Expect(t, res, err, http.StatusUnauthorized)
	for _, call := range []func() (testkit.Reply, error){
		func() (testkit.Reply, error) { return anon.ListCredentialsWithResponse(ctx, nil) },
		func() (testkit.Reply, error) { return anon.ListCredentialProvidersWithResponse(ctx) },
		func() (testkit.Reply, error) { return anon.GetCredentialWithResponse(ctx, uuid.New()) },
		func() (testkit.Reply, error) {
			return anon.UpdateCredentialWithResponse(ctx, uuid.New(), platformapi.CredentialUpdateRequest{Name: new("y")})
		},
		func() (testkit.Reply, error) { return anon.DeleteCredentialWithResponse(ctx, uuid.New()) },
	} {
		r, err := call()
		testkit.Expect(t, r, err, http.StatusUnauthorized)
	}
}

// TestCreateUniqueName: a second credential of the same name in the organization is 409, while another
// organization may use the name.
func TestCreateUniqueName(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleOrgAdmin)
	create(t, user, "shared", newSecret())
	res, err := user.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "shared",
		Provider: "sftp", CredentialType: "user_password", Data: &map[string]any{"host": "h", "username": "u", "password": "p"}})
	testkit.Expect(t, res, err, http.StatusConflict)
	create(t, env.User(t, env.Org(t), auth.RoleOrgAdmin), "shared", newSecret())
}

// TestCreateChecksData: data that does not match the provider's schema, or a credential type the
// provider does not take, is 422 located where it is wrong, without the secret, and stores nothing.
func TestCreateChecksData(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	secret := newSecret()
	for _, c := range []struct {
		provider platformapi.ProviderApiEnum
		typ      platformapi.CredentialTypeEnum
		data     map[string]any
		want     string
	}{
		{"vendor_b", "api_key", map[string]any{}, "body.data.api_key"},
		{"vendor_b", "api_key", map[string]any{"api_key": secret, "apikey": secret}, "body.data.apikey"},
		{"vendor_b", "api_key", map[string]any{"api_key": 42}, "body.data.api_key"},
		{"vendor_b", "oauth2", map[string]any{"api_key": secret}, "body.credential_type"},
		{"sftp", "user_password", map[string]any{"host": "h", "username": "u"}, "body.data"},
		{"sftp", "key_file", map[string]any{"host": "h", "username": "u", "private_key": secret, "port": 70000}, "body.data.port"},
		{"vendor_a", "oauth2", map[string]any{"access_token": secret, "expires_at": secret}, "body.data.expires_at"},
		{"sql_database", "user_password", map[string]any{"host": "h", "database": "d", "username": "u", "password": ""}, "body.data.password"},
	} {
		res, err := user.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "bad",
			Provider: c.provider, CredentialType: c.typ, Data: &c.data})
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		noSecret(t, res.Body, secret)
		if got := locs(t, res.Body); !slices.Contains(got, c.want) {
			t.Errorf("%s %v: locs %v, want %s: %s", c.provider, c.data, got, c.want, res.Body)
		}
	}
	// A secret sent where an object belongs is refused by the contract's own check, which echoes a
	// wrong value back, but never one of a writeOnly field.
	req, _ := http.NewRequest(http.MethodPost, env.URL+"/api/credentials", strings.NewReader(
		`{"name": "bad", "provider": "vendor_b", "credential_type": "api_key", "data": "`+secret+`"}`))
	req.Header.Set("Authorization", "Bearer "+user.Token)
	req.Header.Set("Content-Type", "application/json")
	raw, err := env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(raw.Body)
	raw.Body.Close()
	if raw.StatusCode != http.StatusUnprocessableEntity || !slices.Contains(locs(t, body), "body.data") {
		t.Fatalf("data as a string: %d %s", raw.StatusCode, body)
	}
	noSecret(t, body, secret)
	if got, total := names(t, user, nil); total != 0 {
		t.Fatalf("refused credentials were stored: %v", got)
	}
}
