package jobs_test

import (
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

func TestCountJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	f.many(t, app, 7, "SCHEDULED")
	f.many(t, app, 5, "COMPLETED")
	f.many(t, app, 2, "FAILED")
	f.seed(t, app, row{status: "COMPLETED", tags: []string{"t"}}, row{status: "SUSPENDED", tags: []string{"t"}})
	labeler := f.member(t, app, "LABELER")

	t.Run("the counters and an exact count agree", func(t *testing.T) {
		t.Parallel()
		counters, _ := labeler.V1.CountJobsWithResponse(ctx, app, nil)
		wantStatus(t, "counters", counters.StatusCode(), counters.Body, 200)
		exact, _ := labeler.V1.CountJobsWithResponse(ctx, app, &v1api.CountJobsParams{UseCache: new(false)})
		c, e := *counters.JSON200, *exact.JSON200
		if c.Total != 16 || c.Scheduled != 7 || c.Completed != 6 || c.Failed != 2 || c.Suspended != 1 || *c.Cached || c.CountedAt == nil {
			t.Fatalf("counters %+v", c)
		}
		c.CountedAt, e.CountedAt, c.Cached, e.Cached = nil, nil, nil, nil
		if c != e {
			t.Fatalf("counters %+v, exact %+v", c, e)
		}
		only, _ := labeler.V1.CountJobsWithResponse(ctx, app, &v1api.CountJobsParams{StatusIn: &[]string{"COMPLETED", "FAILED"}})
		if o := only.JSON200; o.Total != 8 || o.Completed != 6 || o.Scheduled != 0 {
			t.Fatalf("statusIn: %+v", o)
		}
	})

	t.Run("filtered counts are cached for a minute", func(t *testing.T) {
		t.Parallel()
		capp := f.newApp(t, appOpts{})
		f.seed(t, capp, row{status: "COMPLETED", tags: []string{"t"}}, row{status: "SUSPENDED", tags: []string{"t"}}, row{status: "FAILED"})
		p := &v1api.CountJobsParams{Tags: &[]string{"t"}}
		first, _ := labeler.V1.CountJobsWithResponse(ctx, capp, p)
		// labeler is not a member of capp: the admin counts here.
		wantStatus(t, "not a member", first.StatusCode(), first.Body, http.StatusNotFound)
		first, _ = f.admin.V1.CountJobsWithResponse(ctx, capp, p)
		if c := first.JSON200; c.Total != 2 || *c.Cached {
			t.Fatalf("first count %+v", c)
		}
		f.seed(t, capp, row{status: "COMPLETED", tags: []string{"t"}})
		cached, _ := f.admin.V1.CountJobsWithResponse(ctx, capp, p)
		if c := cached.JSON200; c.Total != 2 || !*c.Cached || !c.CountedAt.Equal(*first.JSON200.CountedAt) {
			t.Fatalf("within a minute %+v", c)
		}
		fresh, _ := f.admin.V1.CountJobsWithResponse(ctx, capp, &v1api.CountJobsParams{Tags: &[]string{"t"}, UseCache: new(false)})
		if c := fresh.JSON200; c.Total != 3 || *c.Cached || c.Completed != 2 {
			t.Fatalf("useCache=false %+v", c)
		}
		// The same filter written differently shares the entry; once it is older than a minute it is counted again.
		f.seed(t, capp, row{status: "COMPLETED", tags: []string{"t"}})
		again, _ := f.admin.V1.CountJobsWithResponse(ctx, capp, &v1api.CountJobsParams{Tags: &[]string{"t", "t"}})
		if c := again.JSON200; c.Total != 3 || !*c.Cached {
			t.Fatalf("same filter: %+v", c)
		}
		// Another replica on the same database shares the cache. Time is moved on by ageing the shared
		// entry, which a server holding the count in memory does not see (it keeps it for the rest of the
		// count's real minute: TestRecentCountsExpire), so a new replica asks after that.
		replica := testkit.NewEnv(t, testkit.WithDB(f.env.DB), testkit.WithoutWorkers())
		_, onReplica := replica.Clients(t, f.admin.Token)
		shared, _ := onReplica.CountJobsWithResponse(ctx, capp, p)
		if c := shared.JSON200; c.Total != 3 || !*c.Cached || !c.CountedAt.Equal(*again.JSON200.CountedAt) {
			t.Fatalf("on another replica: %+v", c)
		}
		if _, err := f.env.DB.Exec(`UPDATE job_count_cache SET counted_at = counted_at - interval '61 seconds' WHERE app_id = $1`, capp); err != nil {
			t.Fatal(err)
		}
		replica = testkit.NewEnv(t, testkit.WithDB(f.env.DB), testkit.WithoutWorkers())
		_, onReplica = replica.Clients(t, f.admin.Token)
		stale, _ := onReplica.CountJobsWithResponse(ctx, capp, p)
		if c := stale.JSON200; c.Total != 4 || *c.Cached {
			t.Fatalf("after a minute %+v", c)
		}
	})

	t.Run("per processing state", func(t *testing.T) {
		t.Parallel()
		papp := f.newApp(t, appOpts{})
		f.seed(t, papp, row{status: "SCHEDULED", state: "AWAITING_HUMAN", tags: []string{"a", "b"}},
			row{status: "COMPLETED", state: "DONE", tags: []string{"a"}}, row{status: "COMPLETED", state: "REVIEWED"},
			row{status: "FAILED", state: "ERROR", tags: []string{"b"}})
		res, _ := f.admin.V1.CountJobsByProcessingStateWithResponse(ctx, papp, nil)
		wantStatus(t, "all", res.StatusCode(), res.Body, 200)
		if c := res.JSON200; c.Total != 4 || c.AwaitingHuman != 1 || c.Done != 1 || c.Reviewed != 1 || c.Error != 1 || c.Queued != 0 {
			t.Fatalf("per state %+v", c)
		}
		res, _ = f.admin.V1.CountJobsByProcessingStateWithResponse(ctx, papp, &v1api.CountJobsByProcessingStateParams{
			Tags: &[]string{"a"}, NotTags: &[]string{"b"}})
		if c := res.JSON200; c.Total != 1 || c.Done != 1 {
			t.Fatalf("tags a, not b: %+v", c)
		}
	})
}
