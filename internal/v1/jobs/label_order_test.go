package jobs_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLabelingOrder: the queue hands out the highest priority first and, within a priority, the oldest
// job; a job the caller holds comes back to it before any free one, whatever their priorities.
func TestLabelingOrder(t *testing.T) {
	t.Parallel()
	f := setup(t)

	t.Run("highest priority first, then the oldest", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		ids := f.seed(t, app,
			row{status: "SCHEDULED", priority: 5},
			row{status: "SCHEDULED", priority: 10},
			row{status: "SCHEDULED", priority: 1},
			row{status: "SUSPENDED", priority: 10},
			row{status: "COMPLETED", priority: 10}, // not waiting
			row{status: "SCHEDULED", priority: 7},
			row{status: "SCHEDULED", priority: 5},
			row{status: "IN_PROGRESS", priority: 10}, // not waiting either
		)
		want := []int64{ids[1], ids[3], ids[5], ids[0], ids[6], ids[2]}
		// One worker after another, each keeping its job: every lease is the next of the order, and
		// remaining counts down the free ones.
		for i, id := range want {
			got := take(t, f.member(t, app, "LABELER"), app, nil, http.StatusOK)
			if got.Job.Id != id || got.Remaining != int64(len(want)-i-1) {
				t.Fatalf("lease %d: job %d remaining %d, want job %d remaining %d", i, got.Job.Id, got.Remaining, id, len(want)-i-1)
			}
		}
		take(t, f.member(t, app, "LABELER"), app, nil, http.StatusNoContent)
	})

	t.Run("workers asking at once get the top of the queue", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		// 30 jobs, priorities 1..10 three times over: the 9 of priority 8, 9 and 10 are the top.
		var rows []row
		for i := range 30 {
			rows = append(rows, row{status: "SCHEDULED", priority: 1 + i%10})
		}
		ids := f.seed(t, app, rows...)
		var top []int64
		for i, id := range ids {
			if rows[i].priority >= 8 {
				top = append(top, id)
			}
		}
		workers := make([]*testkit.Caller, len(top))
		for i := range workers {
			workers[i] = f.member(t, app, "LABELER")
		}
		var mu sync.Mutex
		var got []int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, w := range workers {
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
				got = append(got, res.JSON200.Job.Id)
				mu.Unlock()
			}()
		}
		close(start)
		wg.Wait()
		slices.Sort(got)
		if !slices.Equal(got, top) {
			t.Fatalf("handed out %v, want the jobs of priority 8 to 10 %v, each once", got, top)
		}
	})

	t.Run("a held job is renewed before a higher-priority free one", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		low := f.seed(t, app, row{status: "SCHEDULED", priority: 1})[0]
		ann, bob := f.member(t, app, "LABELER"), f.member(t, app, "LABELER")
		first := take(t, ann, app, nil, http.StatusOK)
		if first.Job.Id != low {
			t.Fatalf("ann's lease: job %d, want %d", first.Job.Id, low)
		}
		high := f.seed(t, app, row{status: "SCHEDULED", priority: 10})[0]
		again := take(t, ann, app, nil, http.StatusOK)
		if again.Job.Id != low || again.LockExpiresAt.Before(first.LockExpiresAt) || again.Remaining != 1 {
			t.Fatalf("ann again: job %d lock %v (was %v) remaining %d; want her job %d renewed, 1 remaining",
				again.Job.Id, again.LockExpiresAt, first.LockExpiresAt, again.Remaining, low)
		}
		if evs := f.recorded(t, low); !slices.Equal(evs, []string{"ASSIGNED"}) {
			t.Fatalf("history of the renewed job %v: a renewal is no new assignment", evs)
		}
		if got := take(t, bob, app, nil, http.StatusOK); got.Job.Id != high {
			t.Fatalf("bob: job %d, want the free one %d", got.Job.Id, high)
		}

		// Holding several (taken by id), a worker is given back the first of them in the queue's order.
		other := f.newApp(t, appOpts{})
		held := f.seed(t, other, row{status: "SCHEDULED", priority: 2}, row{status: "SCHEDULED", priority: 9},
			row{status: "SCHEDULED", priority: 10})
		cat := f.member(t, other, "LABELER")
		take(t, cat, other, &v1api.GetJobToLabelParams{JobId: &held[0]}, http.StatusOK)
		take(t, cat, other, &v1api.GetJobToLabelParams{JobId: &held[1]}, http.StatusOK)
		if got := take(t, cat, other, nil, http.StatusOK); got.Job.Id != held[1] {
			t.Fatalf("holding jobs %d (priority 2) and %d (priority 9): renewed %d", held[0], held[1], got.Job.Id)
		}
	})
}
