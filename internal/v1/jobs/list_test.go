package jobs_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
)

func TestListJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	var rows []row
	for i := 0; i < 25; i++ {
		r := row{status: "SCHEDULED", input: fmt.Sprintf(`{"n": %d, "who": {"name": "w%d"}}`, i, i%3), tags: []string{"all"}}
		if i%2 == 0 {
			r.status, r.tags = "COMPLETED", []string{"all", "even"}
		}
		if i%5 == 0 {
			r.score, r.batch = new(float64(i)/100), new("b5")
		}
		rows = append(rows, r)
	}
	ids := f.seed(t, app, rows...)
	labeler := f.member(t, app, "LABELER")

	t.Run("paging and total", func(t *testing.T) {
		t.Parallel()
		res, _ := labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{Page: new(2), Size: new(10)})
		wantStatus(t, "page 2", res.StatusCode(), res.Body, 200)
		if l := res.JSON200; l.Total != 25 || len(l.Items) != 5 || l.Page != 2 || l.Size != 10 || l.Items[0].Id != ids[20] {
			t.Fatalf("page 2: total %d items %d page %d size %d", l.Total, len(l.Items), l.Page, l.Size)
		}
		def, _ := labeler.V1.ListJobsWithResponse(ctx, app, nil)
		if l := def.JSON200; l.Total != 25 || len(l.Items) != 10 || l.Page != 0 || l.Size != 10 || l.Items[0].Id != ids[0] {
			t.Fatalf("defaults: %+v", l)
		}
		beyond, _ := labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{Page: new(9)})
		if l := beyond.JSON200; l.Total != 25 || len(l.Items) != 0 {
			t.Fatalf("beyond the end: total %d items %d", l.Total, len(l.Items))
		}
	})

	t.Run("sort", func(t *testing.T) {
		t.Parallel()
		desc := v1api.ListJobsParamsOrderBy("desc")
		res, _ := labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{OrderBy: &desc, Size: new(3)})
		if it := res.JSON200.Items; it[0].Id != ids[24] || it[2].Id != ids[22] {
			t.Fatalf("id desc: %d %d", it[0].Id, it[2].Id)
		}
		score := v1api.ListJobsParamsSortBy("score")
		res, _ = labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{SortBy: &score, OrderBy: &desc, Size: new(6)})
		it := res.JSON200.Items
		// Scores 0.20, 0.15, 0.10, 0.05, 0.00, then the jobs without a score (nulls last), by id desc.
		if it[0].Id != ids[20] || it[4].Id != ids[0] || it[5].Score != nil || it[5].Id != ids[24] {
			t.Fatalf("score desc: %d %d %d", it[0].Id, it[4].Id, it[5].Id)
		}
		asc := v1api.ListJobsParamsOrderBy("asc")
		res, _ = labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{SortBy: &score, OrderBy: &asc, Size: new(6)})
		if it := res.JSON200.Items; it[0].Id != ids[0] || it[5].Score != nil {
			t.Fatalf("score asc: %d", it[0].Id)
		}
	})

	t.Run("filters", func(t *testing.T) {
		t.Parallel()
		completed := []string{"COMPLETED"}
		for name, c := range map[string]struct {
			p    v1api.ListJobsParams
			want int64
		}{
			"statusIn":                {v1api.ListJobsParams{StatusIn: &completed}, 13},
			"tags":                    {v1api.ListJobsParams{Tags: &[]string{"all", "even"}}, 13},
			"notTags":                 {v1api.ListJobsParams{NotTags: &[]string{"even"}}, 12},
			"batchId":                 {v1api.ListJobsParams{BatchId: new("b5")}, 5},
			"json path":               {v1api.ListJobsParams{InputPath: new("{who.name}"), InputValue: new("w1")}, 8},
			"status, tags and a path": {v1api.ListJobsParams{StatusIn: &completed, Tags: &[]string{"all"}, InputPath: new("{who.name}"), InputValue: new("w1")}, 4},
			"scoreGreaterThan":        {v1api.ListJobsParams{ScoreGreaterThan: new(float32(0.1))}, 2},
			"idGreaterThan":           {v1api.ListJobsParams{IdGreaterThan: &ids[21]}, 3},
			"nothing matches":         {v1api.ListJobsParams{BatchId: new("none")}, 0},
		} {
			c.p.Size = new(2)
			res, _ := labeler.V1.ListJobsWithResponse(ctx, app, &c.p)
			wantStatus(t, name, res.StatusCode(), res.Body, 200)
			if res.JSON200.Total != c.want || int64(len(res.JSON200.Items)) != min(c.want, 2) {
				t.Errorf("%s: total %d, %d items; want %d", name, res.JSON200.Total, len(res.JSON200.Items), c.want)
			}
		}
		ids, _ := labeler.V1.ListJobIdsWithResponse(ctx, app, &v1api.ListJobIdsParams{Tags: &[]string{"even"}, Size: new(100)})
		wantStatus(t, "ids", ids.StatusCode(), ids.Body, 200)
		if l := ids.JSON200; l.Total != 13 || len(l.Items) != 13 {
			t.Fatalf("ids: %+v", l)
		}
	})

	t.Run("400 names the parameter", func(t *testing.T) {
		t.Parallel()
		pending := []string{"PENDING"}
		res, _ := labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{StatusIn: &pending})
		if res.StatusCode() != 400 || !mentions(res.Body, "statusIn") {
			t.Errorf("statusIn=PENDING on listJobs: %d %s", res.StatusCode(), res.Body)
		}
		res, _ = labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{InputValue: new("x")})
		if res.StatusCode() != 400 || !mentions(res.Body, "inputValue") {
			t.Errorf("inputValue without inputPath: %d %s", res.StatusCode(), res.Body)
		}
		res, _ = labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{InputPath: new("a.b")})
		if res.StatusCode() != 400 || !mentions(res.Body, "inputPath") {
			t.Errorf("inputPath without braces: %d %s", res.StatusCode(), res.Body)
		}
		res, _ = labeler.V1.ListJobsWithResponse(ctx, app, &v1api.ListJobsParams{Size: new(1001)})
		if res.StatusCode() != 400 || !mentions(res.Body, "size") {
			t.Errorf("size 1001: %d %s", res.StatusCode(), res.Body)
		}
		// Routes that do not take a filter refuse it instead of ignoring it.
		for _, path := range []string{"/jobs/ids?statusIn=COMPLETED", "/jobs/collaborator?tags=x", "/jobs/count-by-processing-state?statusIn=COMPLETED"} {
			status, body := raw(t, f, labeler, http.MethodGet, "/v1/apps/"+app.String()+path)
			if status != 400 {
				t.Errorf("%s: %d %v", path, status, body)
			}
		}
		status, _ := raw(t, f, labeler, http.MethodGet, "/v1/apps/"+app.String()+"/jobs?statusIn=COMPLETED&statusIn=FAILED")
		if status != 200 {
			t.Errorf("statusIn repeated: %d", status)
		}
	})

	t.Run("404 and 401", func(t *testing.T) {
		t.Parallel()
		other := f.newApp(t, appOpts{org: f.env.Org(t)})
		f.seed(t, other, row{status: "SCHEDULED"})
		res, _ := f.admin.V1.ListJobsWithResponse(ctx, other, nil)
		wantStatus(t, "other organization", res.StatusCode(), res.Body, 404)
		res, _ = f.env.V1.ListJobsWithResponse(ctx, app, nil)
		wantStatus(t, "anonymous", res.StatusCode(), res.Body, 401)
	})
}

func TestListJobsWithFeedbackMessage(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ids := f.seed(t, f.app, row{status: "COMPLETED"}, row{status: "COMPLETED"}, row{status: "COMPLETED"})
	post := func(id int64, msg string) time.Time {
		res, _ := f.admin.V1.SubmitJobFeedbackWithResponse(ctx, f.app, id, nil, v1api.JobFeedbackInput{Message: new(msg)})
		wantStatus(t, "feedback", res.StatusCode(), res.Body, 201)
		return res.JSON201.CreatedAt
	}
	post(ids[0], "first")
	cut := post(ids[0], "second").Add(time.Microsecond)
	time.Sleep(5 * time.Millisecond)
	post(ids[0], "third")
	post(ids[2], "only")

	res, _ := f.admin.V1.ListJobsWithFeedbackMessageWithResponse(ctx, f.app, nil)
	wantStatus(t, "list", res.StatusCode(), res.Body, 200)
	l := res.JSON200
	if l.Total != 2 || len(l.Items) != 2 || l.Items[0].Job.Id != ids[0] || *l.Items[0].FeedbackMessage.Message != "third" ||
		*l.Items[1].FeedbackMessage.Message != "only" || l.Items[0].FeedbackMessage.JobId != ids[0] {
		t.Fatalf("latest messages: %s", res.Body)
	}
	res, _ = f.admin.V1.ListJobsWithFeedbackMessageWithResponse(ctx, f.app, &v1api.ListJobsWithFeedbackMessageParams{FeedbackMessageCreatedBefore: &cut})
	if l := res.JSON200; l.Total != 1 || len(l.Items) != 1 || *l.Items[0].FeedbackMessage.Message != "second" {
		t.Fatalf("before the third message: %s", res.Body)
	}
	res, _ = f.admin.V1.ListJobsWithFeedbackMessageWithResponse(ctx, f.app, &v1api.ListJobsWithFeedbackMessageParams{FeedbackSearch: new("ONL")})
	if l := res.JSON200; l.Total != 1 || l.Items[0].Job.Id != ids[2] {
		t.Fatalf("feedbackSearch: %s", res.Body)
	}
}

// TestListCollaboratorJobs: the caller's jobs are those it labeled, reviewed or holds, and no others.
func TestListCollaboratorJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{})
	ids := f.seed(t, app, row{status: "SCHEDULED"}, row{status: "SCHEDULED"}, row{status: "COMPLETED"}, row{status: "COMPLETED"}, row{status: "SCHEDULED"})
	me, other := f.member(t, app, "REVIEWER"), f.member(t, app, "REVIEWER")
	take(t, me, app, &v1api.GetJobToLabelParams{JobId: &ids[0]}, 200)
	res, _ := me.V1.SubmitJobResponseWithResponse(ctx, app, ids[1], nil, v1api.JobResponseInput{Response: doc(map[string]any{})})
	wantStatus(t, "label", res.StatusCode(), res.Body, 200)
	fb, _ := me.V1.SubmitJobFeedbackWithResponse(ctx, app, ids[2], nil, v1api.JobFeedbackInput{Correct: new(true)})
	wantStatus(t, "review", fb.StatusCode(), fb.Body, 201)
	// A message without a verdict is no review; another worker's job is not mine.
	_, _ = me.V1.SubmitJobFeedbackWithResponse(ctx, app, ids[3], nil, v1api.JobFeedbackInput{Message: new("hm")})
	take(t, other, app, &v1api.GetJobToLabelParams{JobId: &ids[4]}, 200)

	list, _ := me.V1.ListCollaboratorJobsWithResponse(ctx, app, nil)
	wantStatus(t, "mine", list.StatusCode(), list.Body, 200)
	var got []int64
	for _, j := range list.JSON200.Items {
		got = append(got, j.Id)
	}
	if list.JSON200.Total != 3 || len(got) != 3 || got[0] != ids[0] || got[1] != ids[1] || got[2] != ids[2] {
		t.Fatalf("collaborator jobs %v (total %d), want %v", got, list.JSON200.Total, ids[:3])
	}
	future := time.Now().Add(time.Hour)
	list, _ = me.V1.ListCollaboratorJobsWithResponse(ctx, app, &v1api.ListCollaboratorJobsParams{CreatedStartDate: &future})
	if list.JSON200.Total != 0 {
		t.Fatalf("created in the future: %d", list.JSON200.Total)
	}
}
