package billing_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// usageFixture is an organization with usage at known times: two executions, two products, and one
// /v1 job record without an execution; and a second organization with usage of its own.
type usageFixture struct {
	env                *testkit.Env
	org, other         uuid.UUID
	staff, admin, user *testkit.Caller
	exec1, exec2       uuid.UUID
	alpha, beta        platformapi.ProductResponse
	day                time.Time
	r1, r2, r3         platformapi.UsageRecordResponse
	job                uuid.UUID
}

// newUsageFixture records, one day apart starting at day: r1 (exec1, beta, 10, cost 1), r2 (exec2,
// alpha, 5, no cost), r3 (exec1, alpha, 7, no cost), then a job record of 1 credit on the last day.
func newUsageFixture(t *testing.T) *usageFixture {
	t.Helper()
	env := testkit.NewEnv(t)
	f := &usageFixture{env: env, org: env.Org(t), other: env.Org(t)}
	f.staff = env.User(t, env.Org(t), auth.RoleBackoffice)
	f.admin = env.User(t, f.org, auth.RoleOrgAdmin)
	f.user = env.User(t, f.org, auth.RoleAppUser)
	worker := env.KeyCaller(t, f.org, auth.RoleIntegration)
	f.exec1, f.exec2 = flowExecution(t, env, f.org, "completed"), flowExecution(t, env, f.org, "running")
	f.beta = addProduct(t, f.staff, "beta pages", new(0.1))
	f.alpha = addProduct(t, f.staff, "Alpha tokens", nil)
	f.r1 = mustRecord(t, worker, f.exec1, f.beta.Id, 10)
	f.r2 = mustRecord(t, worker, f.exec2, f.alpha.Id, 5)
	f.r3 = mustRecord(t, worker, f.exec1, f.alpha.Id, 7)
	job, err := credits.Record(ctx, env.DB, credits.Usage{OrganizationID: f.org, ProductID: credits.JobSubmissionProduct,
		JobID: new(int64(1)), Amount: 1, CreatedBy: "system"})
	if err != nil {
		t.Fatal(err)
	}
	f.job = job
	mustRecord(t, env.KeyCaller(t, f.other, auth.RoleIntegration), flowExecution(t, env, f.other, "running"), f.alpha.Id, 100)

	f.day = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []uuid.UUID{f.r1.Id, f.r2.Id, f.r3.Id, job} {
		if _, err := env.DB.Exec(`UPDATE usage_records SET created_at = $2 WHERE id = $1`, id, f.day.AddDate(0, 0, i)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *usageFixture) list(t *testing.T, c *testkit.Caller, p platformapi.ListUsageRecordsParams) *platformapi.ListUsageRecordsResponse {
	t.Helper()
	res, err := c.API.ListUsageRecordsWithResponse(ctx, &p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ids(rs []platformapi.UsageRecordResponse) []uuid.UUID {
	out := make([]uuid.UUID, len(rs))
	for i, r := range rs {
		out[i] = r.Id
	}
	return out
}

func sameIDs(got []uuid.UUID, want ...uuid.UUID) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestListUsageRecords: newest first, paged, filters combined, from inclusive and to exclusive,
// from after to 422; only the caller's organization unless backoffice names another; naming another
// organization otherwise is 404.
func TestListUsageRecords(t *testing.T) {
	t.Parallel()
	f := newUsageFixture(t)

	res := f.list(t, f.user, platformapi.ListUsageRecordsParams{})
	wantStatus(t, "list", res.StatusCode(), res.Body, http.StatusOK)
	l := res.JSON200
	// The job submission's record is listed with its job and no flow execution.
	if l.Total != 4 || !sameIDs(ids(l.UsageRecords), f.job, f.r3.Id, f.r2.Id, f.r1.Id) || l.Page != 1 || l.Limit != 20 {
		t.Fatalf("list %+v", l)
	}
	if j := l.UsageRecords[0]; j.FlowExecutionId != nil || j.JobId == nil || *j.JobId != 1 || j.ProductName != "job-submission" {
		t.Fatalf("job submission record %+v", j)
	}
	if r := l.UsageRecords[3]; r.ProductName != "beta pages" || r.EstimatedCost == nil || *r.EstimatedCost != 1 ||
		!r.CreatedAt.Equal(f.day) {
		t.Fatalf("oldest record %+v", r)
	}

	for _, c := range []struct {
		name   string
		params platformapi.ListUsageRecordsParams
		total  int
		want   []uuid.UUID
	}{
		{"page 2", platformapi.ListUsageRecordsParams{Page: new(2), Limit: new(2)}, 4, []uuid.UUID{f.r2.Id, f.r1.Id}},
		{"execution", platformapi.ListUsageRecordsParams{FlowExecutionId: &f.exec1}, 2, []uuid.UUID{f.r3.Id, f.r1.Id}},
		{"product", platformapi.ListUsageRecordsParams{ProductId: &f.alpha.Id}, 2, []uuid.UUID{f.r3.Id, f.r2.Id}},
		{"execution and product", platformapi.ListUsageRecordsParams{FlowExecutionId: &f.exec1, ProductId: &f.alpha.Id},
			1, []uuid.UUID{f.r3.Id}},
		{"from is inclusive", platformapi.ListUsageRecordsParams{From: new(f.day.AddDate(0, 0, 1))}, 3, []uuid.UUID{f.job, f.r3.Id, f.r2.Id}},
		{"to is exclusive", platformapi.ListUsageRecordsParams{To: new(f.day.AddDate(0, 0, 1))}, 1, []uuid.UUID{f.r1.Id}},
		{"from equals to", platformapi.ListUsageRecordsParams{From: &f.day, To: &f.day}, 0, nil},
		{"another organization's execution", platformapi.ListUsageRecordsParams{FlowExecutionId: new(uuid.New())}, 0, nil},
	} {
		res := f.list(t, f.admin, c.params)
		wantStatus(t, c.name, res.StatusCode(), res.Body, http.StatusOK)
		if res.JSON200.Total != c.total || !sameIDs(ids(res.JSON200.UsageRecords), c.want...) {
			t.Fatalf("%s: total %d, records %v", c.name, res.JSON200.Total, ids(res.JSON200.UsageRecords))
		}
	}

	res = f.list(t, f.admin, platformapi.ListUsageRecordsParams{From: new(f.day.AddDate(0, 0, 1)), To: &f.day})
	wantStatus(t, "from after to", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
	res = f.list(t, f.admin, platformapi.ListUsageRecordsParams{Limit: new(101)})
	wantStatus(t, "limit 101", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)

	res = f.list(t, f.staff, platformapi.ListUsageRecordsParams{OrganizationId: &f.org})
	wantStatus(t, "backoffice", res.StatusCode(), res.Body, http.StatusOK)
	if res.JSON200.Total != 4 {
		t.Fatalf("backoffice sees %d records", res.JSON200.Total)
	}
	res = f.list(t, f.staff, platformapi.ListUsageRecordsParams{})
	wantStatus(t, "backoffice, own organization", res.StatusCode(), res.Body, http.StatusOK)
	if res.JSON200.Total != 0 {
		t.Fatalf("backoffice's own organization has %d records", res.JSON200.Total)
	}
	res = f.list(t, f.admin, platformapi.ListUsageRecordsParams{OrganizationId: &f.other})
	wantError(t, "org_admin naming another organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	res = f.list(t, f.staff, platformapi.ListUsageRecordsParams{OrganizationId: new(uuid.New())})
	wantError(t, "backoffice naming an unknown organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	res = f.list(t, &testkit.Caller{API: f.env.API}, platformapi.ListUsageRecordsParams{})
	wantStatus(t, "anonymous", res.StatusCode(), res.Body, http.StatusUnauthorized)
}

// TestUsageSummary: totals per product sorted by name (case-insensitively), every record counted
// (the /v1 job path's included, so the total equals the credits consumed), records without a cost
// counting 0; filters and period as in the list; backoffice may name another organization.
func TestUsageSummary(t *testing.T) {
	t.Parallel()
	f := newUsageFixture(t)
	summary := func(c *testkit.Caller, p platformapi.GetUsageSummaryParams) *platformapi.GetUsageSummaryResponse {
		t.Helper()
		res, err := c.API.GetUsageSummaryWithResponse(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := summary(f.user, platformapi.GetUsageSummaryParams{})
	wantStatus(t, "summary", res.StatusCode(), res.Body, http.StatusOK)
	s := res.JSON200
	if s.OrganizationId != f.org || s.From != nil || s.To != nil || len(s.Items) != 3 || s.TotalAmount != 23 ||
		s.RecordCount != 4 || s.TotalEstimatedCost != 1 {
		t.Fatalf("summary %+v", s)
	}
	a, b, j := s.Items[0], s.Items[1], s.Items[2]
	if a.ProductId != f.alpha.Id || a.TotalAmount != 12 || a.RecordCount != 2 || a.TotalEstimatedCost != 0 ||
		a.ProductName != "Alpha tokens" || a.Unit != "token" || a.Provider != "openai" {
		t.Fatalf("alpha %+v", a)
	}
	if b.ProductId != f.beta.Id || b.TotalAmount != 10 || b.RecordCount != 1 || b.TotalEstimatedCost != 1 {
		t.Fatalf("beta %+v", b)
	}
	if j.ProductId != credits.JobSubmissionProduct || j.TotalAmount != 1 {
		t.Fatalf("job submissions %+v", j)
	}
	if bal := balance(t, f.user, nil); *bal.CreditsConsumed != s.TotalAmount {
		t.Fatalf("consumed %d, summary total %d", *bal.CreditsConsumed, s.TotalAmount)
	}

	from, to := f.day.AddDate(0, 0, 1), f.day.AddDate(0, 0, 3)
	res = summary(f.admin, platformapi.GetUsageSummaryParams{From: &from, To: &to})
	wantStatus(t, "period", res.StatusCode(), res.Body, http.StatusOK)
	if s := res.JSON200; s.From == nil || !s.From.Equal(from) || s.To == nil || !s.To.Equal(to) || len(s.Items) != 1 ||
		s.Items[0].ProductId != f.alpha.Id || s.TotalAmount != 12 || s.RecordCount != 2 {
		t.Fatalf("period summary %+v", s)
	}
	res = summary(f.admin, platformapi.GetUsageSummaryParams{FlowExecutionId: &f.exec1, ProductId: &f.beta.Id})
	wantStatus(t, "filters", res.StatusCode(), res.Body, http.StatusOK)
	if s := res.JSON200; len(s.Items) != 1 || s.TotalAmount != 10 {
		t.Fatalf("filtered summary %+v", s)
	}
	res = summary(f.admin, platformapi.GetUsageSummaryParams{To: &f.day})
	wantStatus(t, "empty period", res.StatusCode(), res.Body, http.StatusOK)
	if s := res.JSON200; len(s.Items) != 0 || s.TotalAmount != 0 || s.RecordCount != 0 {
		t.Fatalf("empty summary %+v", s)
	}
	res = summary(f.admin, platformapi.GetUsageSummaryParams{From: &to, To: &from})
	wantStatus(t, "from after to", res.StatusCode(), res.Body, http.StatusUnprocessableEntity)

	res = summary(f.staff, platformapi.GetUsageSummaryParams{OrganizationId: &f.other})
	wantStatus(t, "backoffice", res.StatusCode(), res.Body, http.StatusOK)
	if s := res.JSON200; s.OrganizationId != f.other || s.TotalAmount != 100 {
		t.Fatalf("other organization's summary %+v", s)
	}
	res = summary(f.user, platformapi.GetUsageSummaryParams{OrganizationId: &f.other})
	wantError(t, "app_user naming another organization", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	res = summary(&testkit.Caller{API: f.env.API}, platformapi.GetUsageSummaryParams{})
	wantStatus(t, "anonymous", res.StatusCode(), res.Body, http.StatusUnauthorized)
}
