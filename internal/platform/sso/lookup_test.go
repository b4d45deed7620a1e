package sso_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLookup: public, 200 whether or not a provider serves the domain, and a deactivated organization's
// provider does not serve it.
func TestLookup(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	org := env.Org(t)
	d := uniqueDomain("lookup")
	admin := env.User(t, org, auth.RoleOrgAdmin).API
	p := verifyDomain(t, admin, createProvider(t, admin, d), d)

	if l := lookup(t, env.API, "someone@nobody-uses-sso.example.org"); l.SsoEnabled || l.SsoProviderId != nil ||
		l.Domain != "nobody-uses-sso.example.org" {
		t.Fatalf("lookup of a domain without a provider: %+v", l)
	}
	if l := lookup(t, env.API, "a@"+d); !l.SsoEnabled || *l.SsoProviderId != p.SsoProviderId {
		t.Fatalf("lookup of a served domain: %+v", l)
	}
	env.ChangeAccess(t, `UPDATE organizations SET is_active = false WHERE id = $1`, org)
	if l := lookup(t, env.API, "a@"+d); l.SsoEnabled {
		t.Fatalf("a deactivated organization's provider still serves sign-in: %+v", l)
	}

	res, err := env.API.LookupSsoProviderWithResponse(ctx, &platformapi.LookupSsoProviderParams{Email: "not-an-address"})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "malformed address", res.HTTPResponse, res.Body, http.StatusUnprocessableEntity)
}

// TestLookupRateLimit: a client address gets 60 lookups a minute, then 429 with Retry-After.
func TestLookupRateLimit(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	testkit.AwayFromMinuteBoundary()
	for i := 0; i < 60; i++ {
		lookup(t, env.API, "user@example.net")
	}
	res, err := env.API.LookupSsoProviderWithResponse(ctx, &platformapi.LookupSsoProviderParams{Email: "user@example.net"})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "61st lookup", res.HTTPResponse, res.Body, http.StatusTooManyRequests, "rate_limited")
	if s, err := strconv.Atoi(res.HTTPResponse.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Fatalf("Retry-After %q", res.HTTPResponse.Header.Get("Retry-After"))
	}
}
