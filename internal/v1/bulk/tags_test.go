package bulk_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
)

// tagsOf answers each job's tags, in their stored order.
func (f *fixture) tagsOf(t *testing.T, ids []int64) map[int64][]string {
	t.Helper()
	var rows []struct {
		ID   int64          `db:"id"`
		Tags pq.StringArray `db:"tags"`
	}
	if err := f.env.DB.Select(&rows, `SELECT id, tags FROM jobs WHERE id = ANY($1)`, pq.Int64Array(ids)); err != nil {
		t.Fatal(err)
	}
	out := map[int64][]string{}
	for _, r := range rows {
		out[r.ID] = r.Tags
	}
	return out
}

func (f *fixture) wantTags(t *testing.T, ids []int64, want ...string) {
	t.Helper()
	for id, got := range f.tagsOf(t, ids) {
		if len(got) != len(want) {
			t.Fatalf("job %d has tags %q, want %q", id, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("job %d has tags %q, want %q", id, got, want)
			}
		}
	}
}

// TestJobTags: adding keeps each job's tags in order, adds each missing tag once, touches only the
// filtered jobs and is idempotent (no rewrite, no history the second time); removing takes exactly the
// named tags away.
func TestJobTags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.newApp(t, f.org)
	plain := f.seed(t, f.app, 5, "SCHEDULED")
	tagged := f.seed(t, f.app, 5, "COMPLETED", "old", "x")
	done := f.seed(t, f.app, 3, "COMPLETED", "x", "new")
	otherApp := f.seed(t, other, 3, "SCHEDULED")

	add := func(p v1api.AddJobTagsParams, tags ...string) {
		t.Helper()
		res, err := f.admin.V1.AddJobTagsWithResponse(ctx, f.app, &p, v1api.JobTags{Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusNoContent {
			t.Fatalf("addJobTags: %d %s", res.StatusCode(), res.Body)
		}
	}
	add(v1api.AddJobTagsParams{}, "new", "x", "new")
	f.wantTags(t, plain, "new", "x")
	f.wantTags(t, tagged, "old", "x", "new")
	f.wantTags(t, done, "x", "new")
	f.wantTags(t, otherApp)

	var updated string
	if err := f.env.DB.Get(&updated, `SELECT max(updated_at)::text FROM jobs WHERE app_id = $1`, f.app); err != nil {
		t.Fatal(err)
	}
	add(v1api.AddJobTagsParams{}, "x", "new") // idempotent: nothing to rewrite
	var again string
	if err := f.env.DB.Get(&again, `SELECT max(updated_at)::text FROM jobs WHERE app_id = $1`, f.app); err != nil || again != updated {
		t.Fatalf("a second identical add rewrote jobs (%s -> %s, %v)", updated, again, err)
	}
	var hist []struct {
		Event string `db:"event"`
		Tags  string `db:"tags"`
		N     int    `db:"n"`
	}
	if err := f.env.DB.Select(&hist, `SELECT event, details->>'tags' AS tags, count(*) AS n FROM job_history h
		JOIN jobs j ON j.id = h.job_id WHERE j.app_id = $1 GROUP BY 1, 2`, f.app); err != nil {
		t.Fatal(err)
	}
	gained := map[string]int{}
	for _, h := range hist {
		gained[h.Event+" "+h.Tags] = h.N
	}
	if len(hist) != 2 || gained[`TAGS_ADDED ["new"]`] != 5 || gained[`TAGS_ADDED ["new", "x"]`] != 5 {
		t.Fatalf("history after adds: %+v, want 5 jobs gaining [new] and 5 gaining [new, x]", hist)
	}

	// Filters: only the SCHEDULED jobs with id above the second get "s".
	add(v1api.AddJobTagsParams{StatusIn: &[]string{"SCHEDULED"}, IdGreaterThan: new(plain[1])}, "s")
	f.wantTags(t, plain[:2], "new", "x")
	f.wantTags(t, plain[2:], "new", "x", "s")
	f.wantTags(t, tagged, "old", "x", "new")

	remove := func(p v1api.RemoveJobTagsParams, tags ...string) {
		t.Helper()
		res, err := f.admin.V1.RemoveJobTagsWithResponse(ctx, f.app, &p, v1api.JobTags{Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusNoContent {
			t.Fatalf("removeJobTags: %d %s", res.StatusCode(), res.Body)
		}
	}
	remove(v1api.RemoveJobTagsParams{Tags: &[]string{"old"}}, "x", "absent")
	f.wantTags(t, tagged, "old", "new")
	f.wantTags(t, done, "x", "new")
	remove(v1api.RemoveJobTagsParams{}, "x", "new")
	f.wantTags(t, plain[:2])
	f.wantTags(t, plain[2:], "s")
	f.wantTags(t, tagged, "old")
	f.wantTags(t, done)
	var removed int
	if err := f.env.DB.Get(&removed, `SELECT count(*) FROM job_history h JOIN jobs j ON j.id = h.job_id
		WHERE j.app_id = $1 AND h.event = 'TAGS_REMOVED'`, f.app); err != nil || removed != 18 {
		t.Fatalf("TAGS_REMOVED rows: %d (%v), want 18", removed, err)
	}
	remove(v1api.RemoveJobTagsParams{}, "x", "new") // idempotent: nobody carries them any more
	if err := f.env.DB.Get(&removed, `SELECT count(*) FROM job_history h JOIN jobs j ON j.id = h.job_id
		WHERE j.app_id = $1 AND h.event = 'TAGS_REMOVED'`, f.app); err != nil || removed != 18 {
		t.Fatalf("TAGS_REMOVED rows after a repeat: %d (%v), want 18", removed, err)
	}
	f.checkCounters(t, f.app)
}

// TestJobTagsValidation: the body is required and checked; a filter that cannot be used is 400 naming it.
func TestJobTagsValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ids := f.seed(t, f.app, 2, "SCHEDULED")
	res, err := f.admin.V1.AddJobTagsWithResponse(ctx, f.app, &v1api.AddJobTagsParams{}, v1api.JobTags{Tags: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "no tags", res.StatusCode(), res.Body, http.StatusBadRequest, "tags")
	res, err = f.admin.V1.AddJobTagsWithResponse(ctx, f.app, &v1api.AddJobTagsParams{}, v1api.JobTags{Tags: []string{"a,b"}})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "comma", res.StatusCode(), res.Body, http.StatusBadRequest, "tags")
	res, err = f.admin.V1.AddJobTagsWithResponse(ctx, f.app, &v1api.AddJobTagsParams{ResponseMatchType: new(v1api.AddJobTagsParamsResponseMatchType("IS"))},
		v1api.JobTags{Tags: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "match type alone", res.StatusCode(), res.Body, http.StatusBadRequest, "responseMatchType")
	rm, err := f.admin.V1.RemoveJobTagsWithResponse(ctx, f.app, &v1api.RemoveJobTagsParams{IdSearch: new("12")}, v1api.JobTags{Tags: nil})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "remove without tags", rm.StatusCode(), rm.Body, http.StatusBadRequest, "tags")
	f.wantTags(t, ids)
}
