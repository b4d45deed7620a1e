package billing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestGrantCredits: backoffice grants to any organization, deactivated ones included, with the
// contract's default reason; grantor and modifier are the caller. Other roles get 403, no credentials
// 401, an unknown organization 404 and a zero amount 422; a refused grant changes nothing.
func TestGrantCredits(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, active := env.Org(t), env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)

	res, err := staff.API.GrantCreditsWithResponse(ctx, org, platformapi.CreateCreditGrantRequest{Amount: 100,
		Reason: new("pilot")})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "grant", res.StatusCode(), res.Body, http.StatusCreated)
	g := res.JSON201
	if g.OrganizationId != org || g.Amount != 100 || g.Reason != "pilot" || g.GrantedBy != staff.UserID.String() ||
		g.ModifiedBy != staff.UserID.String() {
		t.Fatalf("grant %+v", g)
	}
	if d := grant(t, staff, org, 5); d.Reason != "Manual grant by admin" {
		t.Fatalf("default reason %q", d.Reason)
	}

	env.ChangeAccess(t, `UPDATE organizations SET is_active = false WHERE id = $1`, org)
	grant(t, staff, org, 1)
	if b := balance(t, staff, &org); b.CreditsGranted != 106 || b.CreditsRemaining != 106 {
		t.Fatalf("balance after three grants %+v", b)
	}

	res, err = staff.API.GrantCreditsWithResponse(ctx, uuid.New(), platformapi.CreateCreditGrantRequest{Amount: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "unknown organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	res, err = staff.API.GrantCreditsWithResponse(ctx, org, platformapi.CreateCreditGrantRequest{Amount: 0})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "zero amount", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
	long := make([]byte, 501)
	for i := range long {
		long[i] = 'x'
	}
	res, err = staff.API.GrantCreditsWithResponse(ctx, org, platformapi.CreateCreditGrantRequest{Amount: 1, Reason: new(string(long))})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "reason too long", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)

	for _, c := range []struct {
		name   string
		caller *testkit.Caller
		want   int
	}{
		{"app_user", env.User(t, active, auth.RoleAppUser), http.StatusForbidden},
		{"org_admin of the organization", env.User(t, active, auth.RoleOrgAdmin), http.StatusForbidden},
		{"integration", env.KeyCaller(t, active, auth.RoleIntegration), http.StatusForbidden},
		{"anonymous", &testkit.Caller{API: env.API}, http.StatusUnauthorized},
	} {
		res, err := c.caller.API.GrantCreditsWithResponse(ctx, active, platformapi.CreateCreditGrantRequest{Amount: 1000})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, c.name, res.StatusCode(), res.Body, c.want)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM credit_grants WHERE organization_id IN ($1, $2)`, org, active); err != nil || n != 3 {
		t.Fatalf("%d grants recorded (%v), want 3", n, err)
	}
	if b := balance(t, staff, &active); b.CreditsGranted != 0 {
		t.Fatalf("refused grants changed the balance: %+v", b)
	}
}

// TestListCreditGrants: newest first, paged; an org_admin sees only its own organization's grants
// (another organization's, like an unknown one, is 404), backoffice any; app_user gets 403.
func TestListCreditGrants(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	first, second := grant(t, staff, org, 10), grant(t, staff, org, 20)
	grant(t, staff, other, 30)
	// Grants of one transaction share a timestamp; separate them so the order is by time, not by id.
	if _, err := env.DB.Exec(`UPDATE credit_grants SET created_at = created_at - interval '1 hour' WHERE id = $1`, first.Id); err != nil {
		t.Fatal(err)
	}

	list := func(c *testkit.Caller, id uuid.UUID, page, limit *int) *platformapi.ListCreditGrantsResponse {
		t.Helper()
		res, err := c.API.ListCreditGrantsWithResponse(ctx, id, &platformapi.ListCreditGrantsParams{Page: page, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := list(admin, org, nil, nil)
	wantStatus(t, "own grants", res.StatusCode(), res.Body, http.StatusOK)
	if l := res.JSON200; l.Total != 2 || len(l.CreditGrants) != 2 || l.CreditGrants[0].Id != second.Id ||
		l.CreditGrants[1].Id != first.Id || l.Page != 1 || l.Limit != 20 {
		t.Fatalf("grants %+v", l)
	}
	res = list(admin, org, new(2), new(1))
	wantStatus(t, "second page", res.StatusCode(), res.Body, http.StatusOK)
	if l := res.JSON200; l.Total != 2 || len(l.CreditGrants) != 1 || l.CreditGrants[0].Id != first.Id {
		t.Fatalf("page 2 %+v", l)
	}
	res = list(staff, other, nil, nil)
	wantStatus(t, "backoffice", res.StatusCode(), res.Body, http.StatusOK)
	if l := res.JSON200; l.Total != 1 || l.CreditGrants[0].Amount != 30 {
		t.Fatalf("other organization's grants %+v", l)
	}

	res = list(admin, other, nil, nil)
	wantError(t, "another organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	notYours := errorDetail(t, res.Body)
	res = list(admin, uuid.New(), nil, nil)
	wantError(t, "unknown organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	if errorDetail(t, res.Body) != notYours {
		t.Fatalf("another organization answers %s, an unknown one %s", notYours, res.Body)
	}
	res = list(staff, uuid.New(), nil, nil)
	wantError(t, "backoffice, unknown organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	res = list(env.User(t, org, auth.RoleAppUser), org, nil, nil)
	wantStatus(t, "app_user", res.StatusCode(), res.Body, http.StatusForbidden)
	res = list(&testkit.Caller{API: env.API}, org, nil, nil)
	wantStatus(t, "anonymous", res.StatusCode(), res.Body, http.StatusUnauthorized)
	res = list(admin, org, new(0), nil)
	wantStatus(t, "page 0", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
}

// TestCreditBalance: granted, consumed (the sum of every usage record, the /v1 job path's included)
// and remaining, which goes below zero when usage outruns the grants. Any role reads its own
// organization; only backoffice may name another one.
func TestCreditBalance(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	user := env.User(t, org, auth.RoleAppUser)
	exec := flowExecution(t, env, org, "running")
	product := addProduct(t, staff, uniqueName("tokens"), nil)

	if b := balance(t, user, nil); b.OrganizationId != org || b.CreditsGranted != 0 || b.CreditsRemaining != 0 ||
		b.CreditsConsumed == nil || *b.CreditsConsumed != 0 {
		t.Fatalf("balance of a new organization %+v", b)
	}
	grant(t, staff, org, 100)
	grant(t, staff, org, 50)
	mustRecord(t, worker, exec, product.Id, 30)
	// The /v1 job path records through the credits package, without a flow execution.
	if _, err := credits.Record(ctx, env.DB, credits.Usage{OrganizationID: org, ProductID: credits.JobSubmissionProduct,
		JobID: new(int64(7)), Amount: 1, CreatedBy: "system"}); err != nil {
		t.Fatal(err)
	}
	b := balance(t, user, &org)
	var sum int64
	if err := env.DB.Get(&sum, `SELECT sum(amount) FROM usage_records WHERE organization_id = $1`, org); err != nil {
		t.Fatal(err)
	}
	if b.CreditsGranted != 150 || b.CreditsConsumed == nil || *b.CreditsConsumed != 31 || *b.CreditsConsumed != sum ||
		b.CreditsRemaining != 119 {
		t.Fatalf("balance after grants and usage %+v (usage sums to %d)", b, sum)
	}

	// Usage is recorded past zero, never refused.
	mustRecord(t, worker, exec, product.Id, 200)
	if b := balance(t, staff, &org); b.OrganizationId != org || *b.CreditsConsumed != 231 || b.CreditsRemaining != -81 {
		t.Fatalf("backoffice reading an overdrawn balance %+v", b)
	}
	if b := balance(t, staff, nil); b.OrganizationId != staff.OrgID || b.CreditsGranted != 0 {
		t.Fatalf("backoffice's own balance %+v", b)
	}

	for _, c := range []struct {
		name   string
		caller *testkit.Caller
		org    uuid.UUID
		want   int
	}{
		{"app_user naming another organization", user, other, http.StatusNotFound},
		{"org_admin naming another organization", env.User(t, org, auth.RoleOrgAdmin), other, http.StatusNotFound},
		{"app_user naming an unknown organization", user, uuid.New(), http.StatusNotFound},
		{"backoffice naming an unknown organization", staff, uuid.New(), http.StatusNotFound},
		{"anonymous", &testkit.Caller{API: env.API}, org, http.StatusUnauthorized},
	} {
		res, err := c.caller.API.GetCreditBalanceWithResponse(ctx, &platformapi.GetCreditBalanceParams{OrganizationId: &c.org})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, c.name, res.StatusCode(), res.Body, c.want)
	}
}
