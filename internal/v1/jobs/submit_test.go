package jobs_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
)

func TestSubmitJob(t *testing.T) {
	t.Parallel()
	f := setup(t)

	t.Run("defaults come from the app, and the job is paid for", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{settings: `{"default_priority": 7}`, ttl: new(3600)})
		before, err := credits.Get(ctx, f.env.DB, f.org)
		if err != nil {
			t.Fatal(err)
		}
		res, err := f.admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{
			Input: doc(map[string]any{"text": "hello"}), Tags: &[]string{"a", "b", "a"}, BatchId: new("b1"),
			Metadata: new(doc(map[string]any{"src": "test"}))})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "submit", res.StatusCode(), res.Body, http.StatusCreated)
		s := res.JSON201
		if s.Status != "SCHEDULED" || s.AppId != app || s.BatchId == nil || *s.BatchId != "b1" || s.FlowExecutionId != nil {
			t.Fatalf("submitted %+v", s)
		}
		if s.ExpiresAt == nil || d(s.ExpiresAt.Sub(s.CreatedAt)-time.Hour) > time.Second {
			t.Fatalf("expires_at %v, created_at %v; want one hour later", s.ExpiresAt, s.CreatedAt)
		}
		got, err := f.admin.V1.GetJobWithResponse(ctx, app, s.Id, nil)
		if err != nil || got.JSON200 == nil {
			t.Fatalf("get: %v %s", err, got.Body)
		}
		j := got.JSON200
		if *j.Priority != 7 || j.ProcessingState != "AWAITING_HUMAN" || len(j.Tags) != 2 || fields(j.Metadata)["src"] != "test" ||
			fields(j.Input)["text"] != "hello" || j.Response != nil || *j.Reviewed != "NOT_REVIEWED" {
			t.Fatalf("job %+v", j)
		}
		after, _ := credits.Get(ctx, f.env.DB, f.org)
		if after.Consumed < before.Consumed+1 {
			t.Fatalf("consumed %d then %d", before.Consumed, after.Consumed)
		}
		var n int
		if err := f.env.DB.Get(&n, `SELECT count(*) FROM usage_records WHERE job_id = $1 AND product_id = $2 AND amount = 1
			AND organization_id = $3`, s.Id, credits.JobSubmissionProduct, f.org); err != nil || n != 1 {
			t.Fatalf("usage records of the job: %d %v", n, err)
		}
	})

	t.Run("initial state follows the app", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			name          string
			o             appOpts
			status, state string
		}{
			{"no flow", appOpts{}, "SCHEDULED", "AWAITING_HUMAN"},
			{"no flow, labeling off", appOpts{settings: `{"labeling_enabled": false}`}, "SCHEDULED", "QUEUED"},
			{"flow", appOpts{flow: true}, "SCHEDULED", "QUEUED"},
			{"paused", appOpts{status: "PAUSED"}, "SCHEDULED", "AWAITING_HUMAN"},
			{"paused, flow", appOpts{status: "PAUSED", flow: true}, "PENDING", "QUEUED"},
		} {
			app := f.newApp(t, c.o)
			id := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{}), Priority: new(2), Deadline: new(time.Now().Add(time.Hour))})
			got, _ := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
			if j := got.JSON200; string(j.Status) != c.status || string(j.ProcessingState) != c.state || *j.Priority != 2 || j.ExpiresAt == nil {
				t.Errorf("%s: %s %s priority %d expires %v", c.name, j.Status, j.ProcessingState, *j.Priority, j.ExpiresAt)
			}
		}
	})

	t.Run("400", func(t *testing.T) {
		t.Parallel()
		for name, c := range map[string]struct {
			in     v1api.JobInput
			params *v1api.SubmitJobParams
			loc    string
		}{
			"ttl and deadline": {in: v1api.JobInput{Input: doc(map[string]any{}), TtlSeconds: new(60), Deadline: new(time.Now().Add(time.Hour))}, loc: "deadline"},
			"deadline past":    {in: v1api.JobInput{Input: doc(map[string]any{}), Deadline: new(time.Now().Add(-time.Minute))}, loc: "deadline"},
			"ttl too short":    {in: v1api.JobInput{Input: doc(map[string]any{}), TtlSeconds: new(5)}, loc: "ttl_seconds"},
			"priority":         {in: v1api.JobInput{Input: doc(map[string]any{}), Priority: new(11)}, loc: "priority"},
			"comma in tag":     {in: v1api.JobInput{Input: doc(map[string]any{}), Tags: &[]string{"a,b"}}, loc: "tags"},
		} {
			res, err := f.admin.V1.SubmitJobWithResponse(ctx, f.app, c.params, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode() != http.StatusBadRequest || !mentions(res.Body, c.loc) {
				t.Errorf("%s: %d %s", name, res.StatusCode(), res.Body)
			}
		}
		res, err := f.admin.V1.SubmitJobWithBodyWithResponse(ctx, f.app, nil, "application/json", jsonBody(`{"tags": ["x"]}`))
		if err != nil || res.StatusCode() != http.StatusBadRequest || !mentions(res.Body, "input") {
			t.Errorf("missing input: %d %s", res.StatusCode(), res.Body)
		}
	})

	t.Run("archived app refuses jobs", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{status: "ARCHIVED"})
		res, _ := f.admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: doc(map[string]any{})})
		wantStatus(t, "archived", res.StatusCode(), res.Body, http.StatusConflict)
	})

	t.Run("roles", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		in := v1api.JobInput{Input: doc(map[string]any{})}
		for role, want := range map[string]int{"LABELER": 403, "REVIEWER": 403, "MANAGER": 201} {
			res, _ := f.member(t, app, role).V1.SubmitJobWithResponse(ctx, app, nil, in)
			wantStatus(t, role, res.StatusCode(), res.Body, want)
		}
		key := f.env.KeyCaller(t, f.org, auth.RoleIntegration)
		res, _ := key.V1.SubmitJobWithResponse(ctx, app, nil, in)
		wantStatus(t, "integration key", res.StatusCode(), res.Body, 201)
		// An app_user who is no member does not see the app at all.
		res, _ = f.env.User(t, f.org, auth.RoleAppUser).V1.SubmitJobWithResponse(ctx, app, nil, in)
		wantStatus(t, "stranger", res.StatusCode(), res.Body, 404)
		res, _ = f.env.V1.SubmitJobWithResponse(ctx, app, nil, in)
		wantStatus(t, "anonymous", res.StatusCode(), res.Body, 401)
	})

	t.Run("another organization's app is 404 like a random id", func(t *testing.T) {
		t.Parallel()
		other := f.newApp(t, appOpts{org: f.env.Org(t)})
		in := v1api.JobInput{Input: doc(map[string]any{})}
		a, _ := f.admin.V1.SubmitJobWithResponse(ctx, other, nil, in)
		b, _ := f.admin.V1.SubmitJobWithResponse(ctx, uuid.New(), nil, in)
		if a.StatusCode() != 404 || b.StatusCode() != 404 || a.JSON404.Error.Message != b.JSON404.Error.Message {
			t.Fatalf("other org %d %s, random %d %s", a.StatusCode(), a.Body, b.StatusCode(), b.Body)
		}
	})
}

// TestSubmitWithoutCredits: submissions consume the balance; once it is spent the answer is 402
// payment_required and nothing is stored.
func TestSubmitWithoutCredits(t *testing.T) {
	t.Parallel()
	f := setup(t)
	poor := f.env.Org(t)
	if err := credits.Grant(ctx, f.env.DB, poor, 2); err != nil {
		t.Fatal(err)
	}
	admin := f.env.User(t, poor, auth.RoleOrgAdmin)
	app := f.newApp(t, appOpts{org: poor})
	in := v1api.JobInput{Input: doc(map[string]any{"n": 1})}
	for i := 0; i < 2; i++ {
		res, _ := admin.V1.SubmitJobWithResponse(ctx, app, nil, in)
		wantStatus(t, "paid", res.StatusCode(), res.Body, 201)
	}
	res, _ := admin.V1.SubmitJobWithResponse(ctx, app, nil, in)
	wantStatus(t, "unpaid", res.StatusCode(), res.Body, http.StatusPaymentRequired)
	if code := errorCode(t, res.Body); code != "payment_required" {
		t.Fatalf("code %q", code)
	}
	var jobs, usage int
	_ = f.env.DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE app_id = $1`, app)
	_ = f.env.DB.Get(&usage, `SELECT count(*) FROM usage_records WHERE organization_id = $1`, poor)
	b, _ := credits.Get(ctx, f.env.DB, poor)
	if jobs != 2 || usage != 2 || b.Remaining() != 0 {
		t.Fatalf("jobs %d, usage records %d, balance %+v", jobs, usage, b)
	}
}

func d(x time.Duration) time.Duration {
	if x < 0 {
		return -x
	}
	return x
}

// TestSubmitRecordsUsageOnBothPaths: far from zero a submission writes job, usage and spent credit in
// one statement; near zero it takes the locked path. Both leave the same ledger behind.
func TestSubmitRecordsUsageOnBothPaths(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := f.env.Org(t)
	// Remaining credits before each submission: 1027, 1026, 1025 (one statement), then 1024 (locked).
	if err := credits.Grant(ctx, f.env.DB, org, credits.Comfortable+3); err != nil {
		t.Fatal(err)
	}
	admin := f.env.User(t, org, auth.RoleOrgAdmin)
	app := f.newApp(t, appOpts{org: org})
	var ids []int64
	for i := 0; i < 4; i++ {
		res, _ := admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: doc(map[string]any{"n": i})})
		wantStatus(t, "submit", res.StatusCode(), res.Body, 201)
		ids = append(ids, res.JSON201.Id)
	}
	var usage []int64
	if err := f.env.DB.Select(&usage, `SELECT job_id FROM usage_records WHERE organization_id = $1 AND product_id = $2
		AND amount = 1 ORDER BY job_id`, org, credits.JobSubmissionProduct); err != nil {
		t.Fatal(err)
	}
	b, _ := credits.Get(ctx, f.env.DB, org)
	if len(usage) != 4 || usage[0] != ids[0] || usage[3] != ids[3] || b.Consumed != 4 || b.Remaining() != credits.Comfortable-1 {
		t.Fatalf("usage for jobs %v (submitted %v), balance %+v", usage, ids, b)
	}
}

// TestDocumentsKeepTheirNumbers: input, metadata and response are stored and answered as sent, so an
// integer beyond float64's 2^53 keeps every digit.
func TestDocumentsKeepTheirNumbers(t *testing.T) {
	t.Parallel()
	f := setup(t)
	big := `{"id": 12345678901234567890, "price": 0.1, "nested": {"n": 9007199254740993}}`
	meta := json.RawMessage(`{"trace": 18446744073709551615}`)
	id := f.submit(t, f.app, v1api.JobInput{Input: json.RawMessage(big), Metadata: &meta})
	res, err := f.admin.V1.GetJobWithResponse(ctx, f.app, id, nil)
	if err != nil || res.StatusCode() != 200 {
		t.Fatalf("get: %v %s", err, res.Body)
	}
	for _, want := range []string{"12345678901234567890", "9007199254740993", "18446744073709551615"} {
		if !strings.Contains(string(res.Body), want) {
			t.Fatalf("%s lost in %s", want, res.Body)
		}
	}
	r, _ := f.admin.V1.SubmitJobResponseWithResponse(ctx, f.app, id, nil, v1api.JobResponseInput{Response: json.RawMessage(`{"total": 98765432109876543210}`)})
	if r.StatusCode() != 200 || !strings.Contains(string(r.Body), "98765432109876543210") {
		t.Fatalf("response: %d %s", r.StatusCode(), r.Body)
	}
}
