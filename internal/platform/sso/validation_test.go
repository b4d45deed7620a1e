package sso_test

import (
	"github.com/oapi-codegen/nullable"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCreateValidation: every refused input is a 422 that says what is wrong, and nothing is written.
func TestCreateValidation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	good := metadataXML(t, "https://idp.example.com/v")
	d := uniqueDomain("valid")
	cases := []struct {
		name string
		body platformapi.SSOProviderCreate
		want string
	}{
		{"both sources", platformapi.SSOProviderCreate{Domains: []string{d}, MetadataXml: &good, MetadataUrl: new("https://idp.example.com/md")}, "not both"},
		{"no source", platformapi.SSOProviderCreate{Domains: []string{d}}, "give one of"},
		{"numeric domain", platformapi.SSOProviderCreate{Domains: []string{"10.0.0.1"}, MetadataXml: &good}, "not an e-mail domain"},
		{"pattern", platformapi.SSOProviderCreate{Domains: []string{"user@example.com"}, MetadataXml: &good}, "domains"},
		{"repeated domain", platformapi.SSOProviderCreate{Domains: []string{d, strings.ToUpper(d)}, MetadataXml: &good}, "repeats"},
		{"http url", platformapi.SSOProviderCreate{Domains: []string{d}, MetadataUrl: new("http://idp.example.com/md")}, "must use https"},
		{"mapping key", platformapi.SSOProviderCreate{Domains: []string{d}, MetadataXml: &good, AttributeMapping: &map[string]any{"groups": "g"}}, "attribute_mapping"},
		{"mapping value", platformapi.SSOProviderCreate{Domains: []string{d}, MetadataXml: &good, AttributeMapping: &map[string]any{"email": 3}}, "attribute_mapping"},
	}
	bad := map[string]struct{ doc, want string }{
		"not xml":          {"<EntityDescriptor", "invalid metadata: not well-formed"},
		"empty":            {"", "invalid metadata"},
		"other root":       {`<html xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>`, "want EntityDescriptor"},
		"no namespace":     {strings.ReplaceAll(good, "xmlns:md=", "xmlns:x="), "invalid metadata"},
		"no entityID":      {strings.Replace(good, `entityID="https://idp.example.com/v"`, "", 1), "no entityID"},
		"no IdP role":      {strings.ReplaceAll(good, "IDPSSODescriptor", "SPSSODescriptor"), "no IDPSSODescriptor"},
		"not SAML 2.0":     {strings.Replace(good, "SAML:2.0:protocol", "SAML:1.1:protocol", 1), "SAML 2.0 protocol"},
		"no SSO endpoint":  {strings.ReplaceAll(good, "SingleSignOnService", "SingleLogoutService"), "no SingleSignOnService"},
		"bad certificate":  {strings.Replace(good, idpCert(t)[:40], "QUJD", 1), "X509Certificate"},
		"no certificate":   {strings.Replace(good, `use="signing"`, `use="encryption"`, 1), "no signing certificate"},
		"doctype":          {`<!DOCTYPE x [<!ENTITY a "aaaa">]>` + good[strings.Index(good, "<md:"):], "DOCTYPE"},
		"too deep":         {strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100), "deeper"},
		"two roots":        {good + "<x/>", "more than one root"},
		"other encoding":   {strings.Replace(good, `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1), "invalid metadata"},
		"NUL in a comment": {good + "<!-- \x00 -->", "NUL"},
	}
	for name, b := range bad {
		doc := b.doc
		cases = append(cases, struct {
			name string
			body platformapi.SSOProviderCreate
			want string
		}{name, platformapi.SSOProviderCreate{Domains: []string{d}, MetadataXml: &doc}, b.want})
	}
	for _, tc := range cases {
		res, err := admin.API.CreateSsoProviderWithResponse(ctx, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, tc.name, res.HTTPResponse, res.Body, http.StatusUnprocessableEntity, tc.want)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM sso_providers`); err != nil || n != 0 {
		t.Fatalf("%d providers written by refused requests (%v)", n, err)
	}
	// The same document is accepted once it is valid, and wrapped in an EntitiesDescriptor too.
	createProvider(t, admin.API, d)
	wrapped := `<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata">` + good[strings.Index(good, "<md:"):] + `</EntitiesDescriptor>`
	res, err := admin.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{Domains: []string{uniqueDomain("wrapped")}, MetadataXml: &wrapped})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "EntitiesDescriptor", res.HTTPResponse, res.Body, http.StatusCreated)
}

// TestUpdateValidation: both metadata sources, bad domains and bad metadata are refused on PATCH and
// leave the provider as it was.
func TestUpdateValidation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	d := uniqueDomain("keep")
	p := createProvider(t, admin.API, d)
	good := metadataXML(t, "https://idp.example.com/u")
	for name, body := range map[string]platformapi.SSOProviderUpdate{
		"both sources":  {MetadataXml: &good, MetadataUrl: new("https://idp.example.com/md")},
		"bad metadata":  {MetadataXml: new("<nope/>"), IsActive: new(false)},
		"http url":      {MetadataUrl: new("http://idp.example.com/md")},
		"repeated":      {Domains: &[]string{"a-" + d, "A-" + strings.ToUpper(d)}},
		"numeric":       {Domains: &[]string{"1.2"}, IsActive: new(false)},
		"unknown field": {AttributeMapping: nullable.NewNullableWithValue(map[string]any{"nickname": "nick"})},
	} {
		res, err := admin.API.UpdateSsoProviderWithResponse(ctx, p.SsoProviderId, body)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, name, res.HTTPResponse, res.Body, http.StatusUnprocessableEntity)
	}
	g, err := admin.API.GetSsoProviderWithResponse(ctx, p.SsoProviderId)
	if err != nil {
		t.Fatal(err)
	}
	if !*g.JSON200.IsActive || *g.JSON200.MetadataXmlHash != *p.MetadataXmlHash || !g.JSON200.UpdatedAt.Equal(p.UpdatedAt) {
		t.Fatalf("a refused update changed the provider: %+v", g.JSON200)
	}
	if same := update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{}, http.StatusOK); !same.UpdatedAt.Equal(p.UpdatedAt) {
		t.Fatal("an empty update changed updated_at")
	}
}
