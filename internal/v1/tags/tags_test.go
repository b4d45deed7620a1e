package tags_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

func TestTagLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	app := appstest.App(t, env.DB, org, "tagged", nil)
	otherApp := appstest.App(t, env.DB, org, "other", nil)
	red := appstest.Job(t, env.DB, org, app, appstest.JobSpec{Tags: []string{"red", "blue"}})
	appstest.Job(t, env.DB, org, app, appstest.JobSpec{Tags: []string{"red"}})
	appstest.Job(t, env.DB, org, otherApp, appstest.JobSpec{Tags: []string{"red"}})
	ctx := context.Background()

	put, err := admin.V1.CreateAppTagWithResponse(ctx, app, "red", nil)
	appstest.Expect(t, put, err, http.StatusOK)
	if tg := put.JSON200; tg.Tag != "red" || tg.AppId != app || tg.JobCount != 2 || tg.Description != nil || tg.Color != nil {
		t.Errorf("created %+v", tg)
	}

	patch, err := admin.V1.UpdateAppTagWithResponse(ctx, app, "red", nil, v1api.AppTagInput{
		Description: nullable.NewNullableWithValue("urgent"), Color: nullable.NewNullableWithValue("#FF0000")})
	appstest.Expect(t, patch, err, http.StatusOK)
	if tg := patch.JSON200; *tg.Description != "urgent" || *tg.Color != "#FF0000" || !tg.UpdatedAt.After(tg.CreatedAt) {
		t.Errorf("updated %+v", tg)
	}
	// Creating again answers the tag unchanged.
	put, err = admin.V1.CreateAppTagWithResponse(ctx, app, "red", nil)
	appstest.Expect(t, put, err, http.StatusOK)
	if *put.JSON200.Description != "urgent" {
		t.Errorf("a second PUT changed the tag: %+v", put.JSON200)
	}
	// Left out keeps, null clears.
	patch, err = admin.V1.UpdateAppTagWithResponse(ctx, app, "red", nil, v1api.AppTagInput{Color: nullable.NewNullNullable[string]()})
	appstest.Expect(t, patch, err, http.StatusOK)
	if tg := patch.JSON200; tg.Color != nil || tg.Description == nil || *tg.Description != "urgent" {
		t.Errorf("partial update %+v", tg)
	}
	res, err := admin.V1.UpdateAppTagWithResponse(ctx, app, "red", nil, v1api.AppTagInput{Color: nullable.NewNullableWithValue("red")})
	appstest.Expect(t, res, err, http.StatusBadRequest)

	get, err := admin.V1.GetAppTagWithResponse(ctx, app, "red", nil)
	appstest.Expect(t, get, err, http.StatusOK)
	if get.JSON200.JobCount != 2 {
		t.Errorf("job_count %d", get.JSON200.JobCount)
	}

	del, err := admin.V1.DeleteAppTagWithResponse(ctx, app, "red")
	appstest.Expect(t, del, err, http.StatusNoContent)
	var tags pq.StringArray
	_ = env.DB.Get(&tags, `SELECT tags FROM jobs WHERE id = $1`, red)
	var left int
	_ = env.DB.Get(&left, `SELECT count(*) FROM jobs WHERE 'red' = ANY(tags)`)
	if fmt.Sprint(tags) != "[blue]" || left != 1 {
		t.Errorf("after delete: job tags %v, %d jobs still red (only the other app's should be)", tags, left)
	}
	del, err = admin.V1.DeleteAppTagWithResponse(ctx, app, "red")
	appstest.Expect(t, del, err, http.StatusNoContent)

	g, err := admin.V1.GetAppTagWithResponse(ctx, app, "red", nil)
	appstest.Expect(t, g, err, http.StatusNotFound)
	u, err := admin.V1.UpdateAppTagWithResponse(ctx, app, "red", nil, v1api.AppTagInput{})
	appstest.Expect(t, u, err, http.StatusNotFound)
	bad, err := admin.V1.CreateAppTagWithResponse(ctx, app, "a,b", nil)
	appstest.Expect(t, bad, err, http.StatusBadRequest)
}

func TestListAppTags(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	app := appstest.App(t, env.DB, org, "tagged", nil)
	for _, tag := range []string{"zeta", "Alpha", "beta_1", "beta%2", "gamma"} {
		if _, err := env.DB.Exec(`INSERT INTO app_tags (app_id, tag, organization_id) VALUES ($1, $2, $3)`, app, tag, org); err != nil {
			t.Fatal(err)
		}
	}
	appstest.Job(t, env.DB, org, app, appstest.JobSpec{Tags: []string{"gamma"}})
	ctx := context.Background()
	list := func(p v1api.ListAppTagsParams) v1api.AppTagList {
		t.Helper()
		res, err := admin.V1.ListAppTagsWithResponse(ctx, app, &p)
		appstest.Expect(t, res, err, http.StatusOK)
		return *res.JSON200
	}
	text := func(l v1api.AppTagList) string {
		var s []string
		for _, tg := range l.Items {
			s = append(s, fmt.Sprintf("%s:%d", tg.Tag, tg.JobCount))
		}
		return fmt.Sprint(l.Total, s)
	}
	for _, c := range []struct {
		p    v1api.ListAppTagsParams
		want string
	}{
		{v1api.ListAppTagsParams{}, "5 [Alpha:0 beta%2:0 beta_1:0 gamma:1 zeta:0]"},
		{v1api.ListAppTagsParams{Page: new(1), Size: new(2)}, "5 [beta_1:0 gamma:1]"},
		{v1api.ListAppTagsParams{TagContains: new("A_")}, "1 [beta_1:0]"},
		{v1api.ListAppTagsParams{TagContains: new("ALPHA")}, "1 [Alpha:0]"},
		{v1api.ListAppTagsParams{TagContains: new("%")}, "1 [beta%2:0]"},
	} {
		if got := text(list(c.p)); got != c.want {
			t.Errorf("%+v: got %s, want %s", c.p, got, c.want)
		}
	}
	res, err := admin.V1.ListAppTagsWithResponse(ctx, app, &v1api.ListAppTagsParams{Size: new(1001)})
	appstest.Expect(t, res, err, http.StatusBadRequest)
}

// TestTagAccess: any member reads, MANAGER writes, and another organization's app is a random id.
func TestTagAccess(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	labeler := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, org, auth.RoleAppUser)
	owner := env.User(t, org, auth.RoleAppUser)
	app := appstest.App(t, env.DB, org, "tagged", &owner.UserID)
	foreign := appstest.App(t, env.DB, other, "foreign", nil)
	appstest.Member(t, env.DB, app, labeler.UserID, "LABELER")
	for _, a := range []uuid.UUID{app, foreign} {
		if _, err := env.DB.Exec(`INSERT INTO app_tags (app_id, tag, organization_id) SELECT id, 't', organization_id FROM apps WHERE id = $1`, a); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	routes := map[string]func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error){
		"list": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.ListAppTagsWithResponse(ctx, id, nil)
		},
		"get": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.GetAppTagWithResponse(ctx, id, "t", nil)
		},
		"put": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.CreateAppTagWithResponse(ctx, id, "t", nil)
		},
		"patch": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.UpdateAppTagWithResponse(ctx, id, "t", nil, v1api.AppTagInput{})
		},
		"delete": func(c *testkit.Caller, id uuid.UUID) (appstest.Response, error) {
			return c.V1.DeleteAppTagWithResponse(ctx, id, "u")
		},
	}
	ok := map[string]int{"list": 200, "get": 200, "put": 200, "patch": 200, "delete": 204}
	for name, call := range routes {
		missing, err := call(admin, uuid.New())
		appstest.Expect(t, missing, err, http.StatusNotFound)
		got, err := call(admin, foreign)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)
		got, err = call(stranger, app)
		appstest.Expect(t, got, err, http.StatusNotFound)
		appstest.SameAsMissing(t, got, missing)

		want := ok[name]
		if name != "list" && name != "get" {
			want = http.StatusForbidden
		}
		got, err = call(labeler, app)
		appstest.Expect(t, got, err, want)
		got, err = call(owner, app)
		appstest.Expect(t, got, err, ok[name])
	}
	res, err := env.V1.ListAppTagsWithResponse(ctx, app, nil)
	appstest.Expect(t, res, err, http.StatusUnauthorized)
}
