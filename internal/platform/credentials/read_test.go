package credentials_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestListByNamePagedAndFiltered: any member lists the organization's credentials by name, a page at a
// time, filtered by provider, and never another organization's.
func TestListByNamePagedAndFiltered(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	for _, n := range []string{"charlie", "alpha", "bravo"} {
		create(t, admin, n, newSecret())
	}
	res, err := admin.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "delta",
		Provider: "vendor_a_client_secret", CredentialType: "client_credentials",
		Data: &map[string]any{"client_id": "id", "client_secret": newSecret()}})
	testkit.Expect(t, res, err, http.StatusCreated)
	other := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	create(t, other, "aardvark", newSecret())

	got, total := names(t, env.User(t, org, auth.RoleBackoffice), nil)
	if !slices.Equal(got, []string{"alpha", "bravo", "charlie", "delta"}) || total != 4 {
		t.Fatalf("list %v total %d", got, total)
	}
	got, total = names(t, admin, new(platformapi.ProviderApiEnum("vendor_b")))
	if !slices.Equal(got, []string{"alpha", "bravo", "charlie"}) || total != 3 {
		t.Fatalf("vendor_b only: %v total %d", got, total)
	}
	page, err := admin.API.ListCredentialsWithResponse(ctx, &platformapi.ListCredentialsParams{Page: new(2), Limit: new(3)})
	testkit.Expect(t, page, err, http.StatusOK)
	if p := page.JSON200; len(p.Credentials) != 1 || p.Credentials[0].Name != "delta" || p.Total != 4 || p.Page != 2 || p.Limit != 3 {
		t.Fatalf("page 2 of 3: %+v", p)
	}
	bad, err := admin.API.ListCredentialsWithResponse(ctx, &platformapi.ListCredentialsParams{Limit: new(101)})
	testkit.Expect(t, bad, err, http.StatusUnprocessableEntity)
}

// TestProviders: one entry per ProviderApiEnum value in its order, each schema an object schema with
// the credential types it accepts.
func TestProviders(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	res, err := env.User(t, env.Org(t), auth.RoleIntegration).API.ListCredentialProvidersWithResponse(ctx)
	testkit.Expect(t, res, err, http.StatusOK)
	want := []string{"vendor_a", "sftp", "email_service", "vendor_b", "sql_database", "internal_sql_database",
		"file_storage", "vendor_a_client_secret"}
	var got []string
	for _, p := range res.JSON200.Providers {
		got = append(got, p.Name)
		if p.CredentialSchema["type"] != "object" {
			t.Errorf("%s: schema %v", p.Name, p.CredentialSchema)
		}
		if types, _ := p.CredentialSchema["x-credential-types"].([]any); len(types) == 0 {
			t.Errorf("%s: no credential types", p.Name)
		}
		if p.IsOauth != (p.Name == "vendor_a") {
			t.Errorf("%s: is_oauth %v", p.Name, p.IsOauth)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("providers %v, want %v", got, want)
	}
}
