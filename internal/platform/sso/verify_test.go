package sso_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func verifyCall(t *testing.T, api *platformapi.ClientWithResponses, id, domain string) *platformapi.VerifySsoDomainResponse {
	t.Helper()
	res, err := api.VerifySsoDomainWithResponse(ctx, id, domain)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDomainOwnership: a claimed domain routes no sign-in until its TXT record proves ownership; a
// missing or wrong record is a 422 that says what to publish; a squatter's unverified claim blocks
// neither the rightful owner's claim nor its verification, and once verified the domain cannot be
// claimed or verified by another organization.
func TestDomainOwnership(t *testing.T) {
	t.Parallel()
	env := processEnv(t)
	owner := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	squatter := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	d := uniqueDomain("owned")

	// The squatter claims the domain first; the claim routes nothing.
	ps := createProvider(t, squatter.API, d)
	if v := proof(t, ps, d); v.Verified || v.VerifiedAt != nil || v.TxtRecordName != "_loopwork-challenge."+d ||
		!strings.HasPrefix(v.TxtRecordValue, "loopwork-domain-verification=") {
		t.Fatalf("a new claim shows %+v", v)
	}
	if l := lookup(t, env.API, "ceo@"+d); l.SsoEnabled {
		t.Fatalf("an unverified claim routes sign-in: %+v", l)
	}
	// Without the record, and with a record that holds another token, verification fails.
	miss := verifyCall(t, squatter.API, ps.SsoProviderId, d)
	wantError(t, "verify without a record", miss.HTTPResponse, miss.Body, http.StatusUnprocessableEntity, "domain_not_verified")
	if !strings.Contains(string(miss.Body), "no TXT record at _loopwork-challenge."+d) {
		t.Fatalf("the 422 does not say what to publish: %s", miss.Body)
	}

	// The rightful owner is not blocked by the unverified claim, and proves ownership.
	po := createProvider(t, owner.API, d)
	if proof(t, po, d).TxtRecordValue == proof(t, ps, d).TxtRecordValue {
		t.Fatal("two providers were given the same token")
	}
	dns().publish("_loopwork-challenge."+d, "v=spf1 -all", proof(t, ps, d).TxtRecordValue)
	wrong := verifyCall(t, owner.API, po.SsoProviderId, d)
	wantError(t, "verify with another provider's token", wrong.HTTPResponse, wrong.Body, http.StatusUnprocessableEntity, "do not hold")
	if !strings.Contains(string(wrong.Body), "v=spf1 -all") {
		t.Fatalf("the 422 does not name what was found: %s", wrong.Body)
	}
	if l := lookup(t, env.API, "ceo@"+d); l.SsoEnabled {
		t.Fatalf("a failed verification routes sign-in: %+v", l)
	}
	po = verifyDomain(t, owner.API, po, d)
	if l := lookup(t, env.API, "ceo@"+d); !l.SsoEnabled || *l.SsoProviderId != po.SsoProviderId {
		t.Fatalf("a verified domain does not route to its owner: %+v", l)
	}
	again := verifyCall(t, owner.API, po.SsoProviderId, d)
	wantStatus(t, "verify again", again.HTTPResponse, again.Body, http.StatusOK)

	// The squatter can no longer verify it, even with its own token published next to the owner's, nor
	// claim it with a new provider or by update.
	dns().publish("_loopwork-challenge."+d, proof(t, po, d).TxtRecordValue, proof(t, ps, d).TxtRecordValue)
	late := verifyCall(t, squatter.API, ps.SsoProviderId, d)
	wantError(t, "verify another organization's verified domain", late.HTTPResponse, late.Body, http.StatusConflict, "domain_taken")
	res, err := squatter.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: []string{strings.ToUpper(d)}, MetadataXml: new(metadataXML(t, "https://idp.squatter"))})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "claim a verified domain", res.HTTPResponse, res.Body, http.StatusConflict, "domain_taken")
	other := uniqueDomain("other")
	up, err := squatter.API.UpdateSsoProviderWithResponse(ctx, ps.SsoProviderId, platformapi.SSOProviderUpdate{Domains: &[]string{other, d}})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "update to a verified domain", up.HTTPResponse, up.Body, http.StatusConflict, "domain_taken")
	if l := lookup(t, env.API, "ceo@"+d); *l.SsoProviderId != po.SsoProviderId {
		t.Fatalf("the domain moved: %+v", l)
	}

	// The owner's other domains keep their proof across an update that keeps them.
	kept := update(t, owner.API, po.SsoProviderId, platformapi.SSOProviderUpdate{Domains: &[]string{d, other}}, http.StatusOK)
	if !proof(t, kept, d).Verified || proof(t, kept, other).Verified {
		t.Fatalf("after an update %+v", *kept.DomainVerifications)
	}
	// Roles that do not manage single sign-on may not verify.
	user := env.User(t, *po.OrganizationId, auth.RoleAppUser)
	forbidden := verifyCall(t, user.API, po.SsoProviderId, d)
	wantStatus(t, "app_user verifies", forbidden.HTTPResponse, forbidden.Body, http.StatusForbidden)
	// Another organization's provider, and a domain the provider does not list, are 404.
	for _, c := range []struct {
		api    *platformapi.ClientWithResponses
		id, dn string
	}{{squatter.API, po.SsoProviderId, d}, {owner.API, po.SsoProviderId, uniqueDomain("unlisted")}} {
		nf := verifyCall(t, c.api, c.id, c.dn)
		wantError(t, "verify "+c.dn, nf.HTTPResponse, nf.Body, http.StatusNotFound, "not_found")
	}
}

// TestDNSUnavailable: a DNS server that does not answer is a 503 that changes nothing, not a 500.
func TestDNSUnavailable(t *testing.T) {
	t.Parallel()
	env := testkit.NewProcessEnv(t, "LOOPWORK_DNS_RESOLVER=127.0.0.1:1")
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	d := uniqueDomain("nodns")
	p := createProvider(t, admin.API, d)
	res := verifyCall(t, admin.API, p.SsoProviderId, d)
	wantError(t, "verify without DNS", res.HTTPResponse, res.Body, http.StatusServiceUnavailable, "dns_unavailable")
}
