package tags_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

// TestBlankTagsAreRefused checks every route that gives a tag to an app or a job: a tag made only of
// white space is refused with 400 naming it, and a tag with white space around or inside text is
// taken as it is.
func TestBlankTagsAreRefused(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	app := appstest.App(t, env.DB, org, "tagged", nil)
	job := appstest.Job(t, env.DB, org, app, appstest.JobSpec{})
	ctx := context.Background()
	blank := []string{" ", "\t \n"}

	refused := func(what string, res appstest.Response, err error, loc string) {
		t.Helper()
		appstest.Expect(t, res, err, http.StatusBadRequest)
		e := appstest.ErrorOf(t, res)
		if len(e.Details) == 0 || !strings.Contains(e.Message, "blank") {
			t.Fatalf("%s: %+v does not say the tag is blank", what, e)
		}
		b, _ := json.Marshal(e.Details[0].Loc)
		if string(b) != loc {
			t.Errorf("%s: loc %s, want %s", what, b, loc)
		}
	}
	for _, tag := range blank {
		res, err := admin.V1.CreateAppTagWithResponse(ctx, app, tag, nil)
		refused("define", res, err, `["path","tag"]`)
		sub, err := admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: json.RawMessage(`{}`), Tags: &[]string{"ok", tag}})
		refused("submit", sub, err, `["body","tags",1]`)
		add, err := admin.V1.AddJobTagsWithResponse(ctx, app, nil, v1api.JobTags{Tags: []string{tag}})
		refused("add", add, err, `["body","tags",0]`)
		rm, err := admin.V1.RemoveJobTagsWithResponse(ctx, app, nil, v1api.JobTags{Tags: []string{tag}})
		refused("remove", rm, err, `["body","tags",0]`)
		fb, err := admin.V1.SubmitJobFeedbackWithResponse(ctx, app, job, nil, v1api.JobFeedbackInput{FeedbackTags: &[]string{tag}})
		refused("feedback", fb, err, `["body","feedback_tags",0]`)
	}
	for _, tag := range []string{"needs review", " padded "} {
		res, err := admin.V1.CreateAppTagWithResponse(ctx, app, tag, nil)
		appstest.Expect(t, res, err, http.StatusOK)
		if res.JSON200.Tag != tag {
			t.Errorf("defined %q as %q", tag, res.JSON200.Tag)
		}
		add, err := admin.V1.AddJobTagsWithResponse(ctx, app, nil, v1api.JobTags{Tags: []string{tag}})
		appstest.Expect(t, add, err, http.StatusNoContent)
	}
}
