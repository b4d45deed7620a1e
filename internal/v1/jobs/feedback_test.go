package jobs_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
)

func TestFeedback(t *testing.T) {
	t.Parallel()
	f := setup(t)
	labeler := f.member(t, f.app, "LABELER")
	reviewer := f.member(t, f.app, "REVIEWER")
	id := f.seed(t, f.app, row{status: "COMPLETED", state: "LABELED"})[0]

	res, _ := labeler.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{
		Message: new("date is wrong"), FeedbackTags: &[]string{"wrong_date", "wrong_date", "x"}})
	wantStatus(t, "labeler message", res.StatusCode(), res.Body, http.StatusCreated)
	if m := res.JSON201; *m.Message != "date is wrong" || len(m.FeedbackTags) != 2 || m.Correct != nil || *m.Author != labeler.Email {
		t.Fatalf("message %+v", m)
	}
	res, _ = labeler.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Correct: new(true)})
	wantStatus(t, "labeler verdict", res.StatusCode(), res.Body, http.StatusForbidden)

	for name, body := range map[string]string{"empty": `{}`, "nulls": `{"message": null, "correct": null}`, "no tags": `{"feedback_tags": []}`} {
		res, _ := labeler.V1.SubmitJobFeedbackWithBodyWithResponse(ctx, f.app, id, nil, "application/json", jsonBody(body))
		wantStatus(t, name, res.StatusCode(), res.Body, http.StatusBadRequest)
	}

	// The first verdict is "incorrect": first_incorrect stays true through later verdicts.
	res, _ = reviewer.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Correct: new(false), FeedbackTags: &[]string{"y", "x"}})
	wantStatus(t, "reviewer verdict", res.StatusCode(), res.Body, http.StatusCreated)
	j := getJob(t, f, f.app, id)
	if *j.Correct || *j.Reviewed != "NOT_CORRECT" || !*j.FirstIncorrect || j.ProcessingState != "REVIEWED" {
		t.Fatalf("after the first verdict: correct %v reviewed %v first_incorrect %v state %s", *j.Correct, *j.Reviewed, *j.FirstIncorrect, j.ProcessingState)
	}
	if tags := *j.FeedbackTags; len(tags) != 3 || tags[0] != "wrong_date" || tags[1] != "x" || tags[2] != "y" {
		t.Fatalf("feedback tags %v", tags)
	}
	res, _ = reviewer.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Correct: new(true)})
	wantStatus(t, "second verdict", res.StatusCode(), res.Body, http.StatusCreated)
	j = getJob(t, f, f.app, id)
	if !*j.Correct || *j.Reviewed != "CORRECT" || !*j.FirstIncorrect || len(*j.FeedbackMessages) != 3 {
		t.Fatalf("after the second verdict: %+v", j)
	}
	var count int
	_ = f.env.DB.Get(&count, `SELECT feedback_count FROM jobs WHERE id = $1`, id)
	if count != 3 {
		t.Fatalf("feedback_count %d", count)
	}

	// A first verdict of "correct" leaves first_incorrect false; a verdict before completion leaves the
	// processing state alone.
	other := f.seed(t, f.app, row{status: "SCHEDULED", state: "AWAITING_HUMAN"})[0]
	_, _ = reviewer.V1.SubmitJobFeedbackWithResponse(ctx, f.app, other, nil, v1api.JobFeedbackInput{Correct: new(true)})
	_, _ = reviewer.V1.SubmitJobFeedbackWithResponse(ctx, f.app, other, nil, v1api.JobFeedbackInput{Correct: new(false)})
	j = getJob(t, f, f.app, other)
	if *j.FirstIncorrect || *j.Reviewed != "NOT_CORRECT" || j.ProcessingState != "AWAITING_HUMAN" {
		t.Fatalf("first verdict correct: %+v", j)
	}

	h, _ := f.admin.V1.GetJobHistoryWithResponse(ctx, f.app, id, &v1api.GetJobHistoryParams{Size: new(100)})
	wantStatus(t, "history", h.StatusCode(), h.Body, 200)
	var events []string
	for _, e := range h.JSON200.Items {
		events = append(events, string(e.Event))
	}
	want := []string{"CREATED", "FEEDBACK_ADDED", "FEEDBACK_ADDED", "REVIEWED", "PROCESSING_STATE_CHANGED", "FEEDBACK_ADDED", "REVIEWED"}
	if !slices.Equal(events, want) {
		t.Fatalf("history %v, want %v", events, want)
	}
	if a := h.JSON200.Items[3].Actor; a == nil || *a != reviewer.Email {
		t.Fatalf("review actor %v", a)
	}

	// An API key is no person: its message has no author and its history no actor.
	key := f.env.KeyCaller(t, f.org, auth.RoleIntegration)
	res, _ = key.V1.SubmitJobFeedbackWithResponse(ctx, f.app, other, nil, v1api.JobFeedbackInput{Message: new("from a key")})
	wantStatus(t, "key message", res.StatusCode(), res.Body, http.StatusCreated)
	var actors int
	_ = f.env.DB.Get(&actors, `SELECT count(actor) FROM job_history WHERE job_id = $1 AND details->>'message' = 'from a key'`, other)
	if res.JSON201.Author != nil || actors != 0 {
		t.Fatalf("API key feedback: author %v, %d history actors", res.JSON201.Author, actors)
	}
}

// TestHistoryPaging: the synthesized CREATED entry pages and sorts with the recorded ones.
func TestHistoryPaging(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.submit(t, f.app, v1api.JobInput{Input: doc(map[string]any{})})
	for _, m := range []string{"one", "two", "three"} {
		_, _ = f.admin.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Message: new(m)})
	}
	page, _ := f.admin.V1.GetJobHistoryWithResponse(ctx, f.app, id, &v1api.GetJobHistoryParams{Size: new(2)})
	wantStatus(t, "page 0", page.StatusCode(), page.Body, 200)
	p := page.JSON200
	if p.Total != 4 || len(p.Items) != 2 || p.Items[0].Event != "CREATED" || p.Items[0].Id != 0 || p.Items[0].Actor == nil ||
		*p.Items[0].Actor != f.admin.Email {
		t.Fatalf("page 0: %+v", p)
	}
	desc := v1api.GetJobHistoryParamsOrderBy("desc")
	at := v1api.GetJobHistoryParamsSortBy("at")
	last, _ := f.admin.V1.GetJobHistoryWithResponse(ctx, f.app, id, &v1api.GetJobHistoryParams{Size: new(3), Page: new(1), SortBy: &at, OrderBy: &desc})
	if l := last.JSON200; l.Total != 4 || len(l.Items) != 1 || l.Items[0].Event != "CREATED" {
		t.Fatalf("last page by at desc: %s", last.Body)
	}
}

func getJob(t *testing.T, f *fx, app uuid.UUID, id int64) v1api.Job {
	t.Helper()
	res, err := f.admin.V1.GetJobWithResponse(ctx, app, id, nil)
	if err != nil || res.JSON200 == nil {
		t.Fatalf("get job %d: %v %s", id, err, res.Body)
	}
	return *res.JSON200
}
