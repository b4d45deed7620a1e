package sso_test

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestProviderLifecycle: create, read, list, update (activity, domains, mapping, metadata), look up
// and delete a provider; a deleted provider's domains are free again.
func TestProviderLifecycle(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	d1, d2 := uniqueDomain("acme"), uniqueDomain("acme-labs")

	doc := metadataXML(t, "https://idp.example.com/acme")
	res, err := admin.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: []string{strings.ToUpper(d1), d2}, MetadataXml: &doc,
		AttributeMapping: &map[string]any{"email": "urn:oid:0.9.2342.19200300.100.1.3"}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create", res.HTTPResponse, res.Body, http.StatusCreated)
	p := res.JSON201
	sum := sha256.Sum256([]byte(doc))
	if uuid.Validate(p.SsoProviderId) != nil || p.OrganizationId == nil || *p.OrganizationId != org ||
		p.IsActive == nil || !*p.IsActive || p.MetadataUrl != nil ||
		p.MetadataXmlHash == nil || *p.MetadataXmlHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("created provider %+v", p)
	}
	if p.Domains == nil || len(*p.Domains) != 2 || !contains(*p.Domains, d1) || !contains(*p.Domains, d2) {
		t.Fatalf("domains %v, want %s and %s in lower case", p.Domains, d1, d2)
	}
	if p.AttributeMapping == nil || (*p.AttributeMapping)["email"] != "urn:oid:0.9.2342.19200300.100.1.3" {
		t.Fatalf("attribute mapping %v", p.AttributeMapping)
	}
	var entityID, stored string
	if err := env.DB.QueryRow(`SELECT entity_id, metadata_xml FROM sso_providers WHERE id = $1`, p.SsoProviderId).
		Scan(&entityID, &stored); err != nil || entityID != "https://idp.example.com/acme" || stored != doc {
		t.Fatalf("stored entity id %q (%v)", entityID, err)
	}

	got, err := admin.API.GetSsoProviderWithResponse(ctx, p.SsoProviderId)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "get", got.HTTPResponse, got.Body, http.StatusOK)
	list, err := admin.API.ListSsoProvidersWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "list", list.HTTPResponse, list.Body, http.StatusOK)
	if list.JSON200.Total != 1 || list.JSON200.SsoProviders[0].SsoProviderId != p.SsoProviderId {
		t.Fatalf("list %+v", list.JSON200)
	}

	verifyDomain(t, admin.API, p, d1)
	if l := lookup(t, env.API, "Jane.Doe@"+strings.ToUpper(d1)); !l.SsoEnabled || l.SsoProviderId == nil ||
		*l.SsoProviderId != p.SsoProviderId || l.Domain != d1 {
		t.Fatalf("lookup of an active provider's domain: %+v", l)
	}

	// Deactivation stops sign-in through it; the domains stay reserved.
	upd := update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{IsActive: new(false)}, http.StatusOK)
	if upd.IsActive == nil || *upd.IsActive || len(*upd.Domains) != 2 {
		t.Fatalf("deactivated provider %+v", upd)
	}
	if l := lookup(t, env.API, "jane@"+d1); l.SsoEnabled || l.SsoProviderId != nil {
		t.Fatalf("lookup of an inactive provider's domain: %+v", l)
	}

	// An omitted mapping is kept; domains are replaced as a whole; null removes the mapping; new XML
	// replaces the hash.
	kept := update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{IsActive: new(false)}, http.StatusOK)
	if kept.AttributeMapping == nil {
		t.Fatal("a PATCH without attribute_mapping removed the mapping")
	}
	d3 := uniqueDomain("acme-new")
	doc2 := metadataXML(t, "https://idp.example.com/acme-v2")
	upd = update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{IsActive: new(true),
		Domains: &[]string{d3}, AttributeMapping: nullable.NewNullNullable[map[string]any](), MetadataXml: &doc2}, http.StatusOK)
	sum2 := sha256.Sum256([]byte(doc2))
	if len(*upd.Domains) != 1 || (*upd.Domains)[0] != d3 || upd.AttributeMapping != nil ||
		*upd.MetadataXmlHash != hex.EncodeToString(sum2[:]) || !upd.UpdatedAt.After(p.UpdatedAt) {
		t.Fatalf("updated provider %+v", upd)
	}
	if l := lookup(t, env.API, "jane@"+d1); l.SsoEnabled {
		t.Fatal("a domain removed from the provider still signs in through it")
	}
	verifyDomain(t, admin.API, upd, d3)
	if l := lookup(t, env.API, "jane@"+d3); !l.SsoEnabled {
		t.Fatal("a domain added to the provider does not sign in through it")
	}

	del, err := admin.API.DeleteSsoProviderWithResponse(ctx, p.SsoProviderId)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "delete", del.HTTPResponse, del.Body, http.StatusNoContent)
	got, err = admin.API.GetSsoProviderWithResponse(ctx, p.SsoProviderId)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "get after delete", got.HTTPResponse, got.Body, http.StatusNotFound, "not_found")
	if l := lookup(t, env.API, "jane@"+d3); l.SsoEnabled {
		t.Fatal("a deleted provider's domain still signs in")
	}
	// The domain is free again, for any organization.
	next := env.User(t, env.Org(t), auth.RoleBackoffice).API
	verifyDomain(t, next, createProvider(t, next, d3), d3)
}

func update(t *testing.T, api *platformapi.ClientWithResponses, id string, body platformapi.SSOProviderUpdate, want int) *platformapi.SSOOrganizationResponse {
	t.Helper()
	res, err := api.UpdateSsoProviderWithResponse(ctx, id, body)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "update", res.HTTPResponse, res.Body, want)
	return res.JSON200
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDomainTaken: a verified domain belongs to one provider platform-wide, on create and on update,
// and a provider may keep its own domains when it is updated.
func TestDomainTaken(t *testing.T) {
	t.Parallel()
	env := processEnv(t)
	a := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	b := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	shared, own := uniqueDomain("shared"), uniqueDomain("own")
	pa := verifyDomain(t, a.API, createProvider(t, a.API, shared), shared)
	pb := verifyDomain(t, b.API, createProvider(t, b.API, own), own)

	res, err := b.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: []string{uniqueDomain("fresh"), strings.ToUpper(shared)}, MetadataXml: new(metadataXML(t, "https://idp.b"))})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "create with another organization's domain", res.HTTPResponse, res.Body, http.StatusConflict, "domain_taken")
	if !strings.Contains(string(res.Body), shared) {
		t.Fatalf("the 409 does not name the domain: %s", res.Body)
	}
	up, err := b.API.UpdateSsoProviderWithResponse(ctx, pb.SsoProviderId, platformapi.SSOProviderUpdate{Domains: &[]string{own, shared}})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "update to another organization's domain", up.HTTPResponse, up.Body, http.StatusConflict, "domain_taken")
	// The same organization's other provider counts as another provider too.
	res, err = a.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: []string{shared}, MetadataXml: new(metadataXML(t, "https://idp.a2"))})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "second provider with the same domain", res.HTTPResponse, res.Body, http.StatusConflict, "domain_taken")

	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM sso_providers`); err != nil || n != 2 {
		t.Fatalf("%d providers after refused creates (%v), want 2", n, err)
	}
	if l := lookup(t, env.API, "x@"+own); !l.SsoEnabled || *l.SsoProviderId != pb.SsoProviderId {
		t.Fatalf("a refused update changed the domains: %+v", l)
	}
	update(t, a.API, pa.SsoProviderId, platformapi.SSOProviderUpdate{Domains: &[]string{shared, uniqueDomain("more")}}, http.StatusOK)
}

// TestTenancyAndRoles: another organization's provider is 404 on every route, like a missing one;
// roles other than org_admin and backoffice get 403.
func TestTenancyAndRoles(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	p := createProvider(t, env.User(t, org, auth.RoleOrgAdmin).API, uniqueDomain("tenant"))
	stranger := env.User(t, env.Org(t), auth.RoleBackoffice)
	for _, id := range []string{p.SsoProviderId, "sso_missing"} {
		g, err := stranger.API.GetSsoProviderWithResponse(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, "get "+id, g.HTTPResponse, g.Body, http.StatusNotFound, "not_found")
		u, err := stranger.API.UpdateSsoProviderWithResponse(ctx, id, platformapi.SSOProviderUpdate{IsActive: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, "update "+id, u.HTTPResponse, u.Body, http.StatusNotFound, "not_found")
		d, err := stranger.API.DeleteSsoProviderWithResponse(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, "delete "+id, d.HTTPResponse, d.Body, http.StatusNotFound, "not_found")
	}
	l, err := stranger.API.ListSsoProvidersWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wantStatus(t, "list", l.HTTPResponse, l.Body, http.StatusOK); l.JSON200.Total != 0 {
		t.Fatalf("another organization lists %d providers", l.JSON200.Total)
	}
	var active bool
	if err := env.DB.Get(&active, `SELECT is_active FROM sso_providers WHERE id = $1`, p.SsoProviderId); err != nil || !active {
		t.Fatalf("another organization's update reached the provider (%v)", err)
	}

	for _, c := range []*testkit.Caller{env.User(t, org, auth.RoleAppUser), env.KeyCaller(t, org, auth.RoleIntegration)} {
		cr, err := c.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
			Domains: []string{uniqueDomain("nope")}, MetadataXml: new(metadataXML(t, "https://idp"))})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" create", cr.HTTPResponse, cr.Body, http.StatusForbidden)
		g, err := c.API.GetSsoProviderWithResponse(ctx, p.SsoProviderId)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" get", g.HTTPResponse, g.Body, http.StatusForbidden)
		ls, err := c.API.ListSsoProvidersWithResponse(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" list", ls.HTTPResponse, ls.Body, http.StatusForbidden)
		u, err := c.API.UpdateSsoProviderWithResponse(ctx, p.SsoProviderId, platformapi.SSOProviderUpdate{IsActive: new(false)})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" update", u.HTTPResponse, u.Body, http.StatusForbidden)
		d, err := c.API.DeleteSsoProviderWithResponse(ctx, p.SsoProviderId)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" delete", d.HTTPResponse, d.Body, http.StatusForbidden)
	}
	res, err := env.API.ListSsoProvidersWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "list without credentials", res.HTTPResponse, res.Body, http.StatusUnauthorized)
}
