package jobs_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLabelingOneWorkerAskingAtOnce: a worker's own requests are serialised, and each sees what the one
// before it committed, so a dozen requests of one worker at once take one job between them (the first
// leases it, the others renew it) and leave the rest of the queue to others.
func TestLabelingOneWorkerAskingAtOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	f.many(t, app, 8, "SCHEDULED")
	taken := map[int64]bool{}
	// A few workers in turn, as one try may miss a race that another hits.
	for range 4 {
		got := askAtOnce(t, f.member(t, app, "LABELER"), app, 12)
		if len(got) != 1 {
			t.Fatalf("one worker asking 12 times at once was handed jobs %v, want one job", got)
		}
		for id := range got {
			if taken[id] {
				t.Fatalf("job %d handed to two workers", id)
			}
			taken[id] = true
			if evs := f.recorded(t, id); len(evs) != 1 || evs[0] != "ASSIGNED" {
				t.Fatalf("history of job %d %v: the renewals are no new assignments", id, evs)
			}
		}
	}
	// Another worker gets a job none of them holds, and sees the three left to take.
	if next := take(t, f.member(t, app, "LABELER"), app, nil, http.StatusOK); taken[next.Job.Id] || next.Remaining != 3 {
		t.Fatalf("the next worker got job %d with %d remaining", next.Job.Id, next.Remaining)
	}
	// A job named by id that is no job of the app is missing, as for any other route.
	take(t, f.member(t, app, "LABELER"), app, &v1api.GetJobToLabelParams{JobId: new(int64(1 << 40))}, http.StatusNotFound)
}

// askAtOnce sends n label requests of one worker at once and counts the jobs handed out.
func askAtOnce(t *testing.T, w *testkit.Caller, app uuid.UUID, n int) map[int64]int {
	t.Helper()
	var mu sync.Mutex
	got := map[int64]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := w.V1.GetJobToLabelWithResponse(ctx, app, nil)
			if err != nil || res.JSON200 == nil {
				t.Errorf("lease: %v %v", err, res)
				return
			}
			mu.Lock()
			got[res.JSON200.Job.Id]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return got
}
