package jobs_test

import (
	"sync"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/credits"
)

// TestSubmitTogether: submissions sent at once are written in batches (see submitPaid); each gets its
// own job, and the ledger and the counters hold one of each.
func TestSubmitTogether(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const n = 48
	ids := make(chan int64, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := f.admin.V1.SubmitJobWithResponse(ctx, f.app, nil, v1api.JobInput{Input: doc(map[string]any{"n": i})})
			if err != nil || res.JSON201 == nil {
				t.Errorf("submission %d: %v %s", i, err, res.Body)
				return
			}
			var got int
			if err := f.env.DB.Get(&got, `SELECT (input ->> 'n')::int FROM jobs WHERE id = $1 AND app_id = $2`, res.JSON201.Id, f.app); err != nil || got != i {
				t.Errorf("submission %d answered job %d, which holds %d (%v)", i, res.JSON201.Id, got, err)
			}
			ids <- res.JSON201.Id
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		seen[id] = true
	}
	var usage, counted int64
	_ = f.env.DB.Get(&usage, `SELECT count(DISTINCT job_id) FROM usage_records WHERE organization_id = $1`, f.org)
	_ = f.env.DB.Get(&counted, `SELECT coalesce(sum(n), 0) FROM job_counters WHERE app_id = $1`, f.app)
	b, _ := credits.Get(ctx, f.env.DB, f.org)
	if len(seen) != n || usage != n || counted != n || b.Consumed != n {
		t.Fatalf("%d distinct jobs, %d usage records, %d counted, %d consumed; want %d of each", len(seen), usage, counted, b.Consumed, n)
	}
}
