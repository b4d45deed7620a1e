package jobs_test

import (
	"sync"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestStaleCountIsCountedOnce: requests that find a filtered count stale at the same moment share one
// count. The shared cache row is held locked, so whoever counts waits to store the count, and every
// request arrives while it does; each count stores its own counted_at, so answers with one counted_at
// are one count.
func TestStaleCountIsCountedOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	f.seed(t, app, row{status: "COMPLETED", tags: []string{"t"}}, row{status: "SCHEDULED", tags: []string{"t"}}, row{status: "FAILED"})
	p := &v1api.CountJobsParams{Tags: &[]string{"t"}}
	if first, _ := f.admin.V1.CountJobsWithResponse(ctx, app, p); first.JSON200 == nil || first.JSON200.Total != 2 {
		t.Fatalf("first count: %s", first.Body)
	}
	f.seed(t, app, row{status: "SCHEDULED", tags: []string{"t"}})
	if _, err := f.env.DB.Exec(`UPDATE job_count_cache SET counted_at = counted_at - interval '61 seconds' WHERE app_id = $1`, app); err != nil {
		t.Fatal(err)
	}
	// A server that has not held the count in memory.
	replica := testkit.NewEnv(t, testkit.WithDB(f.env.DB), testkit.WithoutWorkers())
	_, client := replica.Clients(t, f.admin.Token)

	hold, err := f.env.DB.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback() }()
	if _, err := hold.Exec(`SELECT 1 FROM job_count_cache WHERE app_id = $1 FOR UPDATE`, app); err != nil {
		t.Fatal(err)
	}
	const n = 8
	answers := make([]*v1api.JobsCountPerState, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := client.CountJobsWithResponse(ctx, app, p); err == nil {
				answers[i] = res.JSON200
			}
		}()
	}
	time.Sleep(300 * time.Millisecond) // every request is in by now, waiting on the count
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, a := range answers {
		// One that came in late finds the count in the cache: the same count.
		if a == nil || a.Total != 3 || a.CountedAt == nil {
			t.Fatalf("answer %d: %+v", i, a)
		}
		if !a.CountedAt.Equal(*answers[0].CountedAt) {
			t.Fatalf("answers %d and 0 were counted at %s and %s: two counts", i, a.CountedAt, answers[0].CountedAt)
		}
	}
}
