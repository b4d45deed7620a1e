package jobs_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLabelingNeverHandsOutAJobTwice: 20 workers ask at once for the 10 jobs waiting; each job goes
// to exactly one of them and the other 10 are told there is nothing (204).
func TestLabelingNeverHandsOutAJobTwice(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	f.many(t, app, 10, "SCHEDULED")
	workers := make([]*testkit.Caller, 20)
	for i := range workers {
		workers[i] = f.member(t, app, "LABELER")
	}
	var mu sync.Mutex
	got := map[int64]string{}
	empty := 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, w := range workers {
		wg.Add(1)
		go func(w *testkit.Caller) {
			defer wg.Done()
			<-start
			res, err := w.V1.GetJobToLabelWithResponse(ctx, app, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Error(err)
			case res.StatusCode() == http.StatusNoContent:
				empty++
			case res.JSON200 != nil:
				id := res.JSON200.Job.Id
				if prev, dup := got[id]; dup {
					t.Errorf("job %d handed to %s and %s", id, prev, w.Email)
				}
				got[id] = w.Email
				if res.JSON200.AssignedTo != w.Email {
					t.Errorf("assigned_to %q, want %q", res.JSON200.AssignedTo, w.Email)
				}
			default:
				t.Errorf("status %d: %s", res.StatusCode(), res.Body)
			}
		}(w)
	}
	close(start)
	wg.Wait()
	if len(got) != 10 || empty != 10 {
		t.Fatalf("%d jobs handed out, %d empty answers; want 10 and 10", len(got), empty)
	}
	var held int
	_ = f.env.DB.Get(&held, `SELECT count(DISTINCT assigned_to) FROM jobs WHERE app_id = $1 AND lock_expires_at > now()`, app)
	if held != 10 {
		t.Fatalf("%d workers hold jobs", held)
	}
}

func TestLabeling(t *testing.T) {
	t.Parallel()
	f := setup(t)

	t.Run("lease, renew, label, release", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{settings: `{"labeling_lock_minutes": 5}`})
		ids := f.seed(t, app, row{status: "COMPLETED"}, row{status: "SCHEDULED", state: "AWAITING_HUMAN"},
			row{status: "SUSPENDED", state: "AWAITING_HUMAN"}, row{status: "SCHEDULED", state: "AWAITING_HUMAN"})
		ann, bob := f.member(t, app, "LABELER"), f.member(t, app, "LABELER")

		first := take(t, ann, app, nil, http.StatusOK)
		if first.Job.Id != ids[1] || first.Remaining != 2 || d(time.Until(first.LockExpiresAt)-5*time.Minute) > time.Minute {
			t.Fatalf("first lease: job %d remaining %d lock %v", first.Job.Id, first.Remaining, first.LockExpiresAt)
		}
		again := take(t, ann, app, nil, http.StatusOK)
		if again.Job.Id != ids[1] || again.LockExpiresAt.Before(first.LockExpiresAt) {
			t.Fatalf("asking again: job %d lock %v (was %v)", again.Job.Id, again.LockExpiresAt, first.LockExpiresAt)
		}
		if b := take(t, bob, app, nil, http.StatusOK); b.Job.Id != ids[2] || b.Remaining != 1 {
			t.Fatalf("bob: job %d remaining %d", b.Job.Id, b.Remaining)
		}
		// Someone else's job cannot be labeled, by a labeler or a manager.
		res, _ := bob.V1.SubmitJobResponseWithResponse(ctx, app, ids[1], nil, v1api.JobResponseInput{Response: doc(map[string]any{"x": 1})})
		wantStatus(t, "held by other", res.StatusCode(), res.Body, http.StatusConflict)
		res, _ = f.admin.V1.SubmitJobResponseWithResponse(ctx, app, ids[1], nil, v1api.JobResponseInput{Response: doc(map[string]any{"x": 1})})
		wantStatus(t, "held by other, admin", res.StatusCode(), res.Body, http.StatusConflict)

		res, _ = ann.V1.SubmitJobResponseWithResponse(ctx, app, ids[1], nil, v1api.JobResponseInput{Response: doc(map[string]any{"label": "cat"})})
		wantStatus(t, "label", res.StatusCode(), res.Body, http.StatusOK)
		j := res.JSON200
		if j.Status != "COMPLETED" || j.ProcessingState != "DONE" || j.CompletedAt == nil || *j.LabeledBy != ann.Email ||
			j.LabeledAt == nil || j.AssignedTo != nil || fields(*j.Response)["label"] != "cat" || *j.Edited || *j.Relabeled {
			t.Fatalf("labeled job %+v", j)
		}
		// Released: ann's next request takes the next free job.
		if next := take(t, ann, app, nil, http.StatusOK); next.Job.Id != ids[3] || next.Remaining != 0 {
			t.Fatalf("next: job %d remaining %d", next.Job.Id, next.Remaining)
		}
		take(t, f.member(t, app, "LABELER"), app, nil, http.StatusNoContent)

		// Lists name labelers and holders as single reads do: ann labeled ids[1] and holds ids[3], bob holds ids[2].
		list, _ := f.admin.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{})
		wantStatus(t, "list", list.StatusCode(), list.Body, http.StatusOK)
		name := func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		}
		want := map[int64][2]string{ids[0]: {"", ""}, ids[1]: {ann.Email, ""}, ids[2]: {"", bob.Email}, ids[3]: {"", ann.Email}}
		for _, j := range list.JSON200.Items {
			if got := [2]string{name(j.LabeledBy), name(j.AssignedTo)}; got != want[j.Id] {
				t.Errorf("job %d in the list: labeled_by, assigned_to = %q, want %q", j.Id, got, want[j.Id])
			}
		}

		h, _ := ann.V1.GetJobHistoryWithResponse(ctx, app, ids[1], &v1api.GetJobHistoryParams{Size: new(20)})
		var events []string
		for _, e := range h.JSON200.Items {
			events = append(events, string(e.Event))
		}
		if len(events) != 5 || events[1] != "ASSIGNED" || events[2] != "LABELED" || events[3] != "STATUS_CHANGED" || events[4] != "PROCESSING_STATE_CHANGED" {
			t.Fatalf("history %v", events)
		}
	})

	t.Run("an expired lock hands the job to another worker", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		id := f.seed(t, app, row{status: "SCHEDULED"})[0]
		ann, bob := f.member(t, app, "LABELER"), f.member(t, app, "LABELER")
		take(t, ann, app, nil, http.StatusOK)
		take(t, bob, app, nil, http.StatusNoContent)
		if _, err := f.env.DB.Exec(`UPDATE jobs SET lock_expires_at = now() - interval '1 second' WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if got := take(t, bob, app, nil, http.StatusOK); got.Job.Id != id || got.AssignedTo != bob.Email {
			t.Fatalf("bob got %+v", got)
		}
		// Ann's label comes too late now.
		res, _ := ann.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{})})
		wantStatus(t, "late label", res.StatusCode(), res.Body, http.StatusConflict)
		if evs := f.recorded(t, id); !slices.Equal(evs, []string{"ASSIGNED", "RELEASED", "ASSIGNED"}) {
			t.Fatalf("history %v", evs)
		}
		h, _ := bob.V1.GetJobHistoryWithResponse(ctx, app, id, nil)
		if it := h.JSON200.Items; *it[2].Actor != ann.Email || *it[3].Actor != bob.Email || it[2].Event != "RELEASED" {
			t.Fatalf("released by %v, assigned to %v", *it[2].Actor, *it[3].Actor)
		}
	})

	t.Run("jobId", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		ids := f.seed(t, app, row{status: "SCHEDULED"}, row{status: "SCHEDULED"}, row{status: "COMPLETED"})
		other := f.seed(t, f.app, row{status: "SCHEDULED"})[0]
		ann, bob := f.member(t, app, "LABELER"), f.member(t, app, "LABELER")
		if got := take(t, ann, app, &v1api.GetJobToLabelParams{JobId: &ids[1]}, http.StatusOK); got.Job.Id != ids[1] || got.AssignedTo != ann.Email {
			t.Fatalf("named: %+v", got)
		}
		// Held by ann: bob sees it with its holder, and does not take it.
		if got := take(t, bob, app, &v1api.GetJobToLabelParams{JobId: &ids[1]}, http.StatusOK); got.AssignedTo != ann.Email {
			t.Fatalf("held by ann, asked by bob: %+v", got)
		}
		take(t, bob, app, &v1api.GetJobToLabelParams{JobId: &ids[2]}, http.StatusNoContent)
		take(t, bob, app, &v1api.GetJobToLabelParams{JobId: &other}, http.StatusNotFound)
		take(t, bob, app, &v1api.GetJobToLabelParams{JobId: new(int64(1 << 40))}, http.StatusNotFound)
		if got := take(t, bob, app, nil, http.StatusOK); got.Job.Id != ids[0] {
			t.Fatalf("bob's next: %d", got.Job.Id)
		}
	})

	t.Run("what waits for a label", func(t *testing.T) {
		t.Parallel()
		flow := f.newApp(t, appOpts{flow: true})
		ids := f.seed(t, flow, row{status: "SCHEDULED"}, row{status: "IN_PROGRESS"}, row{status: "SUSPENDED"})
		w := f.member(t, flow, "LABELER")
		if got := take(t, w, flow, nil, http.StatusOK); got.Job.Id != ids[2] {
			t.Fatalf("flow app: job %d, want the SUSPENDED one", got.Job.Id)
		}
		off := f.newApp(t, appOpts{settings: `{"labeling_enabled": false}`})
		offJob := f.seed(t, off, row{status: "SCHEDULED"})[0]
		take(t, f.member(t, off, "LABELER"), off, nil, http.StatusNoContent)
		take(t, f.member(t, off, "LABELER"), off, &v1api.GetJobToLabelParams{JobId: &offJob}, http.StatusNoContent)

		dated := f.newApp(t, appOpts{})
		old := f.seed(t, dated, row{status: "SCHEDULED"})[0]
		if _, err := f.env.DB.Exec(`UPDATE jobs SET created_at = now() - interval '2 days' WHERE id = $1`, old); err != nil {
			t.Fatal(err)
		}
		recent := f.seed(t, dated, row{status: "SCHEDULED"})[0]
		got := take(t, f.member(t, dated, "LABELER"), dated, &v1api.GetJobToLabelParams{CreatedStartDate: new(time.Now().Add(-time.Hour))}, http.StatusOK)
		// The old job still waits: remaining counts the app's queue, not the range asked for.
		if got.Job.Id != recent || got.Remaining != 1 {
			t.Fatalf("created range: job %d remaining %d", got.Job.Id, got.Remaining)
		}
	})

	t.Run("review sampling", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{settings: `{"review_rate": 1}`})
		id := f.seed(t, app, row{status: "SUSPENDED"})[0]
		w := f.member(t, app, "LABELER")
		res, _ := w.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{"a": 1})})
		if res.JSON200 == nil || res.JSON200.ProcessingState != "LABELED" {
			t.Fatalf("review_rate 1: %s", res.Body)
		}
	})

	t.Run("correcting a completed job", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		id := f.seed(t, app, row{status: "SCHEDULED"})[0]
		labeler, reviewer := f.member(t, app, "LABELER"), f.member(t, app, "REVIEWER")
		res, _ := labeler.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{"v": 1})})
		wantStatus(t, "label", res.StatusCode(), res.Body, 200)
		res, _ = labeler.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{"v": 2})})
		wantStatus(t, "labeler correcting", res.StatusCode(), res.Body, http.StatusForbidden)
		res, _ = reviewer.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{"v": 3})})
		wantStatus(t, "reviewer correcting", res.StatusCode(), res.Body, 200)
		if j := res.JSON200; !*j.Edited || !*j.Relabeled || *j.LabeledBy != reviewer.Email || fields(*j.Response)["v"] != float64(3) {
			t.Fatalf("corrected %+v", j)
		}
		failed := f.seed(t, app, row{status: "FAILED"})[0]
		res, _ = reviewer.V1.SubmitJobResponseWithResponse(ctx, app, failed, nil, v1api.JobResponseInput{Response: doc(map[string]any{})})
		wantStatus(t, "failed job", res.StatusCode(), res.Body, http.StatusConflict)
		res, _ = f.admin.V1.SubmitJobResponseWithBodyWithResponse(ctx, app, id, nil, "application/json", jsonBody(`{}`))
		wantStatus(t, "no response", res.StatusCode(), res.Body, http.StatusBadRequest)
		if evs := f.recorded(t, id); !slices.Equal(evs, []string{"LABELED", "STATUS_CHANGED", "PROCESSING_STATE_CHANGED", "RELABELED"}) {
			t.Fatalf("history %v", evs)
		}
	})

	t.Run("a completed job edited without a person's label is not relabeled", func(t *testing.T) {
		t.Parallel()
		app := f.newApp(t, appOpts{})
		id := f.seed(t, app, row{status: "COMPLETED", state: "DONE"})[0]
		res, _ := f.admin.V1.SubmitJobResponseWithResponse(ctx, app, id, nil, v1api.JobResponseInput{Response: doc(map[string]any{"v": 1})})
		if j := res.JSON200; j == nil || !*j.Edited || *j.Relabeled {
			t.Fatalf("edited: %s", res.Body)
		}
	})

	t.Run("access", func(t *testing.T) {
		t.Parallel()
		take(t, &testkit.Caller{V1: f.env.V1}, f.app, nil, http.StatusUnauthorized)
		take(t, f.admin, uuid.New(), nil, http.StatusNotFound)
		otherApp := f.newApp(t, appOpts{org: f.env.Org(t)})
		take(t, f.admin, otherApp, nil, http.StatusNotFound)
	})
}

// take asks for a job to label and checks the status.
func take(t *testing.T, c *testkit.Caller, app uuid.UUID, p *v1api.GetJobToLabelParams, want int) v1api.JobCollaborator {
	t.Helper()
	res, err := c.V1.GetJobToLabelWithResponse(ctx, app, p)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "label", res.StatusCode(), res.Body, want)
	if res.JSON200 != nil {
		return *res.JSON200
	}
	return v1api.JobCollaborator{}
}
