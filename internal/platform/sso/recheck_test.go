package sso_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/platform/sso"
	"github.com/loopwork/loopwork/internal/testkit"
)

// checker runs the daily re-check against db with the resolver at addr, on a clock the test moves:
// each call is a day and an hour after the one before, so every verified domain is due again. The
// server's own re-check runs on the real clock, to which these domains are never due.
type checker struct {
	db  *sqlx.DB
	now time.Time
}

func (c *checker) nextDay(t *testing.T, resolver string) {
	t.Helper()
	c.now = c.now.Add(25 * time.Hour)
	s := sso.New(sso.Deps{DB: c.db, Resolver: sso.NewResolver(resolver)})
	if err := s.Recheck(ctx, c.now); err != nil {
		t.Fatal(err)
	}
}

// domainState is whether domain is verified for any provider, and its count of failed checks.
func domainState(t *testing.T, db *sqlx.DB, providerID, domain string) (verified bool, failed int) {
	t.Helper()
	var row struct {
		Verified bool `db:"verified"`
		Failed   int  `db:"failed_checks"`
	}
	if err := db.Get(&row, `SELECT verified_at IS NOT NULL AS verified, failed_checks FROM sso_domains
		WHERE provider_id = $1 AND domain = $2`, providerID, domain); err != nil {
		t.Fatal(err)
	}
	return row.Verified, row.Failed
}

// TestDomainRecheck: a verified domain's record is looked up again daily. One and two answers without
// it keep the domain verified and routing; a record that comes back clears the count; a DNS server
// that does not answer counts nothing however long it stays down; the third answer in a row without
// it unverifies the domain, which stops routing and is free for another organization to claim and
// verify.
func TestDomainRecheck(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	former := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	buyer := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	d := uniqueDomain("sold")
	p := verifyDomain(t, former.API, createProvider(t, former.API, d), d)
	name, value := proof(t, p, d).TxtRecordName, proof(t, p, d).TxtRecordValue
	c := &checker{db: env.DB, now: time.Now()}
	want := func(what string, verified bool, failed int) {
		t.Helper()
		if v, f := domainState(t, env.DB, p.SsoProviderId, d); v != verified || f != failed {
			t.Fatalf("%s: verified %v with %d failed checks, want %v with %d", what, v, f, verified, failed)
		}
		l := lookup(t, env.API, "ceo@"+d)
		if verified && (!l.SsoEnabled || *l.SsoProviderId != p.SsoProviderId) || !verified && l.SsoEnabled {
			t.Fatalf("%s: lookup %+v", what, l)
		}
	}

	// A check is not due until a day after the last: a record gone within the day counts nothing yet.
	dns().unpublish(name)
	if err := sso.New(sso.Deps{DB: env.DB, Resolver: sso.NewResolver(dns().addr)}).Recheck(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	want("within the day", true, 0)

	// The record is back for the first daily check, then gone twice: NXDOMAIN, then another value.
	dns().publish(name, value)
	c.nextDay(t, dns().addr)
	want("record held", true, 0)
	dns().unpublish(name)
	c.nextDay(t, dns().addr)
	want("first failure", true, 1)
	dns().publish(name, "v=spf1 -all", "loopwork-domain-verification=0123456789abcdef0123456789abcdef")
	c.nextDay(t, dns().addr)
	want("second failure", true, 2)

	// It comes back: the count starts over, and two more failures still keep the domain.
	dns().publish(name, "v=spf1 -all", value)
	c.nextDay(t, dns().addr)
	want("record back", true, 0)
	dns().unpublish(name)
	c.nextDay(t, dns().addr)
	c.nextDay(t, dns().addr)
	want("two failures again", true, 2)

	// loopwork's DNS is down for days: no answer is no evidence, and nothing is counted.
	for range 5 {
		c.nextDay(t, "127.0.0.1:1")
	}
	want("DNS down", true, 2)

	// The third answer without the record releases the domain.
	c.nextDay(t, dns().addr)
	want("third failure", false, 3)
	got, err := former.API.GetSsoProviderWithResponse(ctx, p.SsoProviderId)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "get provider", got.HTTPResponse, got.Body, http.StatusOK)
	if v := proof(t, got.JSON200, d); v.Verified || v.VerifiedAt != nil {
		t.Fatalf("the released domain shows %+v", v)
	}
	if !got.JSON200.UpdatedAt.After(p.UpdatedAt) {
		t.Fatalf("releasing a domain did not change the provider: updated_at %s, before %s", got.JSON200.UpdatedAt, p.UpdatedAt)
	}
	// A released domain is no longer due: it is not looked up again.
	c.nextDay(t, dns().addr)
	want("after release", false, 3)

	// The new owner claims and verifies it; it routes to them, and the former owner can no longer
	// verify it.
	pb := verifyDomain(t, buyer.API, createProvider(t, buyer.API, d), d)
	if l := lookup(t, env.API, "ceo@"+d); !l.SsoEnabled || *l.SsoProviderId != pb.SsoProviderId {
		t.Fatalf("the new owner's verified domain routes %+v", l)
	}
	dns().publish(name, value, proof(t, pb, d).TxtRecordValue)
	res := verifyCall(t, former.API, p.SsoProviderId, d)
	wantError(t, "former owner verifies again", res.HTTPResponse, res.Body, http.StatusConflict, "domain_taken")
	// The new owner's verification is checked daily as the first was, from a clean count.
	if v, f := domainState(t, env.DB, pb.SsoProviderId, d); !v || f != 0 {
		t.Fatalf("new verification: verified %v with %d failed checks", v, f)
	}
}

// TestRecheckBatch: one run looks up at most 50 domains, longest due first, and a domain whose lookup
// got no answer goes behind the others due, so domains whose DNS never answers cannot starve the rest.
func TestRecheckBatch(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	var org string
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('batch') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	provider := "batch-" + org
	db.MustExec(`INSERT INTO sso_providers (id, organization_id) VALUES ($1, $2)`, provider, org)
	now := time.Now().Truncate(time.Microsecond) // as the database keeps it
	// 60 verified domains without records, due one minute apart: domain i has been due for 60-i minutes.
	for i := range 60 {
		db.MustExec(`INSERT INTO sso_domains (domain, provider_id, organization_id, verification_token, verified_at,
			checked_at, next_check_at) VALUES ($1, $2, $3, 'token', $4, $4, $5)`, uniqueDomain("batch"), provider, org,
			now.Add(-48*time.Hour), now.Add(time.Duration(i-60)*time.Minute))
	}
	run := func(resolver string) {
		t.Helper()
		if err := sso.New(sso.Deps{DB: db, Resolver: sso.NewResolver(resolver)}).Recheck(ctx, now); err != nil {
			t.Fatal(err)
		}
	}
	count := func(where string, args ...any) int {
		t.Helper()
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM sso_domains WHERE provider_id = $1 AND `+where, append([]any{provider}, args...)...); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// DNS is down: the 50 longest due were tried, counted nothing, and are due again behind the others.
	run("127.0.0.1:1")
	if n := count(`next_check_at = $2`, now); n != 50 {
		t.Fatalf("%d domains were put back, want 50", n)
	}
	if n := count(`(failed_checks > 0 OR verified_at IS NULL)`); n != 0 {
		t.Fatalf("%d domains changed without an answer", n)
	}
	// DNS answers: the 10 not tried yet go first, then 40 of those put back.
	run(dns().addr)
	if n := count(`failed_checks = 1 AND next_check_at < $2`, now.Add(24*time.Hour)); n != 0 {
		t.Fatalf("%d failures are due again at once", n)
	}
	if n := count(`failed_checks = 1`); n != 50 {
		t.Fatalf("%d domains counted a failure, want 50", n)
	}
	if n := count(`failed_checks = 0 AND next_check_at = $2`, now); n != 10 {
		t.Fatalf("%d put back still due, want 10: the 10 never tried were passed over", n)
	}
}
