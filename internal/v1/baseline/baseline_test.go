package baseline_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

type fixture struct {
	env      *testkit.Env
	org      uuid.UUID
	api, app uuid.UUID
	admin    *testkit.Caller
}

func newFixture(t *testing.T) *fixture {
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	f := &fixture{env: env, org: env.Org(t)}
	f.admin = env.User(t, f.org, auth.RoleOrgAdmin)
	f.api, f.app = f.newAPI(t)
	return f
}

// newAPI is a flow of the organization with one app that is an instance of it.
func (f *fixture) newAPI(t *testing.T) (api, app uuid.UUID) {
	if err := f.env.DB.Get(&api, `INSERT INTO flows (organization_id) VALUES ($1) RETURNING id`, f.org); err != nil {
		t.Fatal(err)
	}
	if err := f.env.DB.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, $2, $3) RETURNING id`,
		f.org, "app "+uuid.NewString(), api); err != nil {
		t.Fatal(err)
	}
	return api, app
}

func (f *fixture) member(t *testing.T, app uuid.UUID, role string) *testkit.Caller {
	c := f.env.User(t, f.org, auth.RoleAppUser)
	f.env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, $4)`, app, c.UserID, f.org, role)
	return c
}

func (f *fixture) job(t *testing.T, app uuid.UUID, status, response string) int64 {
	var id int64
	var resp *string
	if response != "" {
		resp = &response
	}
	if err := f.env.DB.Get(&id, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response)
		VALUES ($1, $2, $3, 'DONE', '{"text": "invoice 7"}', $4) RETURNING id`, f.org, app, status, resp); err != nil {
		t.Fatal(err)
	}
	return id
}

func create(t *testing.T, c *testkit.Caller, api uuid.UUID, in v1api.BaselineDataInput, want int) *v1api.BaselineData {
	t.Helper()
	res, err := c.V1.CreateBaselineDataWithResponse(ctx, api, nil, in)
	testkit.Expect(t, res, err, want)
	return res.JSON200
}

// TestBaselineLifecycle: create, list by type with and without labels, update, delete; roles.
func TestBaselineLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	owner := create(t, f.admin, f.api, v1api.BaselineDataInput{Input: map[string]any{"text": "a"}, Response: map[string]any{"total": 1},
		Label: new("simple")}, 200)
	if owner.Type != "OWNER" || owner.Label == nil || *owner.Label != "simple" || owner.CreatedBy == nil || *owner.CreatedBy != f.admin.Email {
		t.Fatalf("created %+v", owner)
	}
	gold := create(t, f.admin, f.api, v1api.BaselineDataInput{Type: new(v1api.BaselineDataType("GOLD_WORKFLOW")),
		Input: map[string]any{"text": "b"}, Response: map[string]any{"total": 2}}, 200)

	labeler, manager := f.member(t, f.app, "LABELER"), f.member(t, f.app, "MANAGER")
	list, err := labeler.V1.ListBaselineDataWithResponse(ctx, f.api, &v1api.ListBaselineDataParams{
		Type: new([]v1api.ListBaselineDataParamsType{"GOLD_WORKFLOW", "REVIEW"})})
	testkit.Expect(t, list, err, 200)
	if list.JSON200.Total != 1 || list.JSON200.Items[0].Id != gold.Id {
		t.Fatalf("by type: %+v", list.JSON200)
	}
	all, err := f.admin.V1.ListBaselineDataWithResponse(ctx, f.api, &v1api.ListBaselineDataParams{IncludeLabel: new(false), Size: new(1)})
	testkit.Expect(t, all, err, 200)
	if all.JSON200.Total != 2 || len(all.JSON200.Items) != 1 || strings.Contains(string(all.Body), `"label"`) {
		t.Fatalf("without labels: %s", all.Body)
	}
	create(t, labeler, f.api, v1api.BaselineDataInput{Input: map[string]any{}, Response: map[string]any{}}, 403)
	create(t, manager, f.api, v1api.BaselineDataInput{Input: map[string]any{}, Response: map[string]any{}}, 200)

	upd, err := manager.V1.UpdateBaselineDataWithResponse(ctx, f.api, owner.Id, nil, v1api.BaselineDataInput{
		Input: map[string]any{"text": "a2"}, Response: map[string]any{"total": 3}})
	testkit.Expect(t, upd, err, 200)
	if upd.JSON200.Input["text"] != "a2" || upd.JSON200.Response["total"] != float64(3) || *upd.JSON200.Label != "simple" || upd.JSON200.Type != "OWNER" {
		t.Fatalf("updated %+v", upd.JSON200)
	}
	del, err := f.admin.V1.DeleteBaselineDataWithResponse(ctx, f.api, gold.Id, nil)
	testkit.Expect(t, del, err, 200)
	if del.JSON200.Id != gold.Id || del.JSON200.Type != "GOLD_WORKFLOW" {
		t.Fatalf("deleted %+v", del.JSON200)
	}
	again, err := f.admin.V1.DeleteBaselineDataWithResponse(ctx, f.api, gold.Id, nil)
	testkit.Expect(t, again, err, 404)

	// A record is reached through its own API only.
	otherAPI, _ := f.newAPI(t)
	wrong, err := f.admin.V1.UpdateBaselineDataWithResponse(ctx, otherAPI, owner.Id, nil, v1api.BaselineDataInput{Input: map[string]any{}, Response: map[string]any{}})
	testkit.Expect(t, wrong, err, 404)

	bad, err := f.admin.V1.CreateBaselineDataWithResponse(ctx, f.api, nil, v1api.BaselineDataInput{Input: map[string]any{},
		Response: map[string]any{}, Label: new(strings.Repeat("x", 201))})
	testkit.Expect(t, bad, err, 400)
	badType, err := f.admin.V1.CreateBaselineDataWithResponse(ctx, f.api, nil, v1api.BaselineDataInput{Input: map[string]any{},
		Response: map[string]any{}, Type: new(v1api.BaselineDataType("SILVER"))})
	testkit.Expect(t, badType, err, 400)
}

// TestBaselineTenancy: another organization's API, and an API the caller has no app of, are 404 like
// a random id.
func TestBaselineTenancy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	create(t, f.admin, f.api, v1api.BaselineDataInput{Input: map[string]any{}, Response: map[string]any{}}, 200)
	stranger := f.env.User(t, f.env.Org(t), auth.RoleOrgAdmin)
	outsider := f.env.User(t, f.org, auth.RoleAppUser)
	missing, err := stranger.V1.ListBaselineDataWithResponse(ctx, uuid.New(), nil)
	testkit.Expect(t, missing, err, 404)
	for _, c := range []*testkit.Caller{stranger, outsider} {
		res, _ := c.V1.ListBaselineDataWithResponse(ctx, f.api, nil)
		testkit.SameAsMissing(t, res, missing)
	}
	_, anon := f.env.Clients(t, "")
	unauth, err := anon.ListBaselineDataWithResponse(ctx, f.api, nil)
	testkit.Expect(t, unauth, err, 401)
}

// TestBaselineFromJob: a COMPLETED job of the API's apps is copied; an unfinished one is 409; a job of
// another API is 404; a labeler may not.
func TestBaselineFromJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	done := f.job(t, f.app, "COMPLETED", `{"total": 12.5}`)
	waiting := f.job(t, f.app, "SCHEDULED", "")
	_, otherApp := f.newAPI(t)
	foreign := f.job(t, otherApp, "COMPLETED", `{"total": 1}`)
	res, err := f.admin.V1.CreateBaselineDataFromJobWithResponse(ctx, f.api, fmt.Sprint(done), nil)
	testkit.Expect(t, res, err, 200)
	r := res.JSON200
	if r.SourceJobId == nil || *r.SourceJobId != done || r.Input["text"] != "invoice 7" || r.Response["total"] != 12.5 || r.Type != "OWNER" {
		t.Fatalf("from job %+v", r)
	}
	conflict, err := f.admin.V1.CreateBaselineDataFromJobWithResponse(ctx, f.api, fmt.Sprint(waiting), nil)
	testkit.Expect(t, conflict, err, 409)
	nf, err := f.admin.V1.CreateBaselineDataFromJobWithResponse(ctx, f.api, fmt.Sprint(foreign), nil)
	testkit.Expect(t, nf, err, 404)
	labeler := f.member(t, f.app, "LABELER")
	denied, err := labeler.V1.CreateBaselineDataFromJobWithResponse(ctx, f.api, fmt.Sprint(done), nil)
	testkit.Expect(t, denied, err, 403)
	reviewer := f.member(t, f.app, "REVIEWER")
	ok, err := reviewer.V1.CreateBaselineDataFromJobWithResponse(ctx, f.api, fmt.Sprint(done), nil)
	testkit.Expect(t, ok, err, 200)
}
