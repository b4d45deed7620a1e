package labeling_test

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// TestStatisticsByHand: a small labeling history whose figures were computed by hand.
//
// Today (at noon UTC, the base): worker A takes job 1 and labels it 60 s later; B takes job 2 and labels
// it 180 s later; A labels job 3 without taking it (no measured time); A takes job 2 again and relabels it
// 30 s later; B edits job 4; B judges job 1 correct, job 2 and job 3 not correct. Yesterday: A took and labeled
// job 7 in 100 s. Usage: 5 credits for job 1, 2 for job 2. Now: job 5 waits, job 6 is held by B.
func TestStatisticsByHand(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	a, b := env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'stats') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*testkit.Caller{a, b} {
		env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'REVIEWER')`, app, w.UserID, org)
	}
	base := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	job := func(status string, labeledBy *uuid.UUID, reviewed *string, holder *uuid.UUID) int64 {
		var id int64
		var lock *time.Time
		if holder != nil {
			l := time.Now().Add(10 * time.Minute)
			lock = &l
		}
		if err := env.DB.Get(&id, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, labeled_by,
			reviewed, assigned_to, lock_expires_at) VALUES ($1, $2, $3, 'DONE', '{}', $4, $5, $6, $7) RETURNING id`,
			org, app, status, labeledBy, reviewed, holder, lock); err != nil {
			t.Fatal(err)
		}
		return id
	}
	correct, notCorrect := "CORRECT", "NOT_CORRECT"
	j1, j2 := job("COMPLETED", &a.UserID, &correct, nil), job("COMPLETED", &a.UserID, &notCorrect, nil)
	j3, j4 := job("COMPLETED", &a.UserID, nil, nil), job("COMPLETED", &b.UserID, nil, nil)
	job("SCHEDULED", nil, nil, nil)
	job("SCHEDULED", nil, nil, &b.UserID)
	j7 := job("COMPLETED", &a.UserID, nil, nil)
	event := func(jobID int64, at time.Time, ev string, who *testkit.Caller, details string) {
		env.DB.MustExec(`INSERT INTO job_history (organization_id, app_id, job_id, at, event, actor, details)
			VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`, org, app, jobID, at, ev, who.Email, details)
	}
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	event(j1, base, "ASSIGNED", a, "{}")
	event(j1, base.Add(s(60)), "LABELED", a, "{}")
	event(j2, base, "ASSIGNED", b, "{}")
	event(j2, base.Add(s(180)), "LABELED", b, "{}")
	event(j3, base.Add(s(200)), "LABELED", a, "{}")
	event(j2, base.Add(s(300)), "ASSIGNED", a, "{}")
	event(j2, base.Add(s(330)), "RELABELED", a, "{}")
	event(j4, base.Add(s(400)), "EDITED", b, "{}")
	event(j1, base.Add(s(500)), "REVIEWED", b, `{"verdict": "CORRECT"}`)
	event(j2, base.Add(s(510)), "REVIEWED", b, `{"verdict": "NOT_CORRECT"}`)
	event(j3, base.Add(s(520)), "REVIEWED", b, `{"verdict": "NOT_CORRECT"}`)
	event(j7, base.Add(-24*time.Hour), "ASSIGNED", a, "{}")
	event(j7, base.Add(-24*time.Hour+s(100)), "LABELED", a, "{}")
	for _, f := range []struct{ job int64 }{{j1}, {j2}} {
		env.DB.MustExec(`INSERT INTO job_feedback (job_id, app_id, organization_id, author, correct) VALUES ($1, $2, $3, $4, true)`,
			f.job, app, org, b.UserID)
	}
	var product uuid.UUID
	if err := env.DB.Get(&product, `INSERT INTO products (name, unit, provider) VALUES ($1, 'credit', 'loopwork') RETURNING id`,
		"p-"+uuid.NewString()); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct{ job, n int64 }{{j1, 5}, {j2, 2}} {
		env.DB.MustExec(`INSERT INTO usage_records (organization_id, product_id, job_id, amount) VALUES ($1, $2, $3, $4)`, org, product, u.job, u.n)
	}

	times, err := a.V1.GetLabelingJobsTimeOverTimeWithResponse(ctx, app, nil)
	testkit.Expect(t, times, err, http.StatusOK)
	bs := times.JSON200.Buckets
	today, yesterday := bs[len(bs)-1], bs[len(bs)-2]
	if len(bs) != 30 || !today.Start.Equal(base.Add(-12*time.Hour)) || times.JSON200.Unit != "seconds" {
		t.Fatalf("buckets: %d, last from %v", len(bs), today.Start)
	}
	// Every label counts as a job labeled (job 3's too, though it has no measured time); the times are
	// those of the three measured labels.
	if today.JobCount != 4 || today.MeasuredCount != 3 || today.Total != 270 || *today.Average != 90 || *today.Median != 60 {
		t.Fatalf("today's times: %d labels, %d measured, %v s, average %v, median %v", today.JobCount, today.MeasuredCount,
			today.Total, *today.Average, *today.Median)
	}
	if yesterday.JobCount != 1 || yesterday.MeasuredCount != 1 || yesterday.Total != 100 || bs[0].JobCount != 0 || bs[0].Average != nil {
		t.Fatalf("yesterday %+v, first %+v", yesterday, bs[0])
	}

	cost, err := a.V1.GetLabelingJobsCostOverTimeWithResponse(ctx, app, nil)
	testkit.Expect(t, cost, err, http.StatusOK)
	c := cost.JSON200.Buckets[29]
	if cost.JSON200.Unit != "credits" || c.JobCount != 4 || c.MeasuredCount != 4 || c.Total != 9 || *c.Average != 2.25 || *c.Median != 2 {
		t.Fatalf("today's cost: %d labels, %v credits, average %v, median %v", c.JobCount, c.Total, *c.Average, *c.Median)
	}

	metrics, err := b.V1.GetLabelingJobsMetricsOverTimeWithResponse(ctx, app, nil)
	testkit.Expect(t, metrics, err, http.StatusOK)
	m := metrics.JSON200.Buckets[29]
	// accuracy is exactly correct / reviewed, as a client divides the two counts: 1/3 in double precision.
	if m.Labeled != 4 || m.Reviewed != 3 || m.Correct != 1 || m.NotCorrect != 2 || m.Edited != 2 || m.Relabeled != 1 ||
		*m.Accuracy != float64(m.Correct)/float64(m.Reviewed) {
		t.Fatalf("today's metrics: %+v", m)
	}
	if metrics.JSON200.Buckets[0].Accuracy != nil {
		t.Fatal("accuracy of a day without reviews is not null")
	}

	progress, err := a.V1.GetLabelingProgressWithResponse(ctx, app, nil)
	testkit.Expect(t, progress, err, http.StatusOK)
	p := progress.JSON200
	if p.AwaitingLabel != 1 || p.BeingLabeled != 1 || p.Labeled != 5 || p.Reviewed != 2 || p.TotalJobs != 7 ||
		math.Abs(float64(p.PercentLabeled)-500.0/7) > 1e-3 || p.PercentReviewed != 40 {
		t.Fatalf("progress %+v", p)
	}
	if len(p.Workers) != 2 || p.Workers[0].Username != a.Email || p.Workers[0].Labeled != 4 || p.Workers[0].Holding != 0 ||
		p.Workers[1].Labeled != 1 || p.Workers[1].Reviewed != 2 || p.Workers[1].Holding != 1 {
		t.Fatalf("workers %+v", p.Workers)
	}

	left, err := a.V1.GetLabelingTimeLeftWithResponse(ctx, app, nil)
	testkit.Expect(t, left, err, http.StatusOK)
	l := left.JSON200
	if l.RemainingJobs != 2 || l.ActiveWorkers != 2 || *l.AverageSecondsPerJob != 92.5 || *l.EstimatedSecondsLeft != 92.5 {
		t.Fatalf("time left %+v", l)
	}

	// Another organization's app is a 404 like a random id; a caller who is no member, 404 too.
	missing, err := stranger.V1.GetLabelingProgressWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	hidden, err := stranger.V1.GetLabelingProgressWithResponse(ctx, app, nil)
	testkit.SameAsMissing(t, hidden, missing)
	_, anon := env.Clients(t, "")
	unauth, err := anon.GetLabelingTimeLeftWithResponse(ctx, app, nil)
	testkit.Expect(t, unauth, err, http.StatusUnauthorized)
}

// TestAgreementByHand: two jobs relabeled today, one to the same label ([x, x]) and one to another
// ([y, z]). Coincidences: o[x][x] = 2, o[y][z] = o[z][y] = 1; n_x = 2, n_y = n_z = 1, n = 4;
// D_o = 2, D_e = (2·1 + 2·1 + 1·2 + 1·1 + 1·2 + 1·1) / 3 = 10/3; α = 1 − 2 / (10/3) = 0.4.
func TestAgreementByHand(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org := env.Org(t)
	c := env.User(t, org, auth.RoleOrgAdmin)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'agree') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ prev, now string }{{`{"label": "x"}`, `{"label": "x"}`}, {`{"label": "y"}`, `{"label": "z"}`}} {
		var id int64
		if err := env.DB.Get(&id, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response, labeled_by)
			VALUES ($1, $2, 'COMPLETED', 'DONE', '{}', $3, $4) RETURNING id`, org, app, r.now, c.UserID); err != nil {
			t.Fatal(err)
		}
		env.DB.MustExec(`INSERT INTO job_history (organization_id, app_id, job_id, event, actor, details)
			VALUES ($1, $2, $3, 'RELABELED', $4, jsonb_build_object('previous_response', $5::jsonb))`, org, app, id, c.Email, r.prev)
	}
	res, err := c.V1.GetLabelingJobsMetricsOverTimeWithResponse(ctx, app, nil)
	testkit.Expect(t, res, err, http.StatusOK)
	today := res.JSON200.Buckets[29]
	if today.Agreement == nil || math.Abs(float64(*today.Agreement)-0.4) > 1e-6 || today.Relabeled != 2 {
		t.Fatalf("today %+v", today)
	}
	if res.JSON200.Buckets[0].Agreement != nil {
		t.Fatal("agreement of a day without relabels")
	}
}
