package apps_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

const flowDef = `{"version":1,"tasks":[{"name":"review","type":"human_review","description":"check it"},
	{"name":"extract","type":"llm"},{"name":"notify","type":"email"}],
	"edges":[{"source":"extract","target":"review"},{"source":"review","target":"notify"}]}`

func create(t *testing.T, c *testkit.Caller, params *v1api.CreateAppParams, body v1api.AppInput) v1api.App {
	t.Helper()
	res, err := c.V1.CreateAppWithResponse(context.Background(), params, body)
	appstest.Expect(t, res, err, http.StatusCreated)
	return *res.JSON201
}

func TestCreateApp(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	flow := appstest.Flow(t, env.DB, org, "Invoice reader", flowDef)
	foreignFlow := appstest.Flow(t, env.DB, other, "Theirs", flowDef)
	workerID, workerEmail := env.NewUser(t, org, auth.RoleAppUser)
	_, outsiderEmail := env.NewUser(t, other, auth.RoleAppUser)
	ctx := context.Background()

	t.Run("defaults, settings over the defaults, owner and a MANAGER worker", func(t *testing.T) {
		t.Parallel()
		a := create(t, admin, &v1api.CreateAppParams{CreateWorker: new(workerEmail)}, v1api.AppInput{
			Name: new("  Invoices "), Description: nullable.NewNullableWithValue("reads invoices"),
			ApiId: nullable.NewNullableWithValue(flow), JobTtlSeconds: nullable.NewNullableWithValue(3600),
			Settings: &v1api.AppSettings{ReviewRate: new(float32(0.25))}})
		if a.Name != "Invoices" || a.Status != "ACTIVE" || a.OrganizationId != org || a.OwnerId == nil || *a.OwnerId != admin.UserID ||
			a.ApiId == nil || *a.ApiId != flow || a.ApiName == nil || *a.ApiName != "Invoice reader" ||
			a.JobTtlSeconds == nil || *a.JobTtlSeconds != 3600 || *a.Description != "reads invoices" {
			t.Errorf("got %+v", a)
		}
		s := a.Settings
		if *s.ReviewRate != 0.25 || *s.DefaultPriority != 5 || !*s.LabelingEnabled || *s.LabelingLockMinutes != 30 || !s.AutoCompleteScore.IsNull() {
			t.Errorf("settings %+v", s)
		}
		var role string
		if err := env.DB.Get(&role, `SELECT role FROM app_workers WHERE app_id = $1 AND user_id = $2`, a.Id, workerID); err != nil || role != "MANAGER" {
			t.Errorf("createWorker: role %q, %v", role, err)
		}
	})
	t.Run("an app_user owns what it creates and manages it", func(t *testing.T) {
		t.Parallel()
		u := env.User(t, org, auth.RoleAppUser)
		a := create(t, u, nil, v1api.AppInput{Name: new("mine"), Status: new(v1api.AppStatus("PAUSED"))})
		if a.Status != "PAUSED" || *a.OwnerId != u.UserID {
			t.Errorf("got %+v", a)
		}
		res, err := u.V1.UpdateAppWithResponse(ctx, a.Id, nil, v1api.AppInput{Name: new("mine, renamed")})
		appstest.Expect(t, res, err, http.StatusOK)
	})
	t.Run("integration keys create apps", func(t *testing.T) {
		t.Parallel()
		create(t, env.KeyCaller(t, org, auth.RoleIntegration), nil, v1api.AppInput{Name: new("from a key")})
	})
	t.Run("name is required, not blank, and unique in any case", func(t *testing.T) {
		t.Parallel()
		create(t, admin, nil, v1api.AppInput{Name: new("Taken")})
		for name, body := range map[string]v1api.AppInput{
			"missing": {}, "blank": {Name: new("   ")}, "taken": {Name: new("TAKEN")},
		} {
			res, err := admin.V1.CreateAppWithResponse(ctx, nil, body)
			appstest.Expect(t, res, err, http.StatusBadRequest)
			e := appstest.ErrorOf(t, res)
			if e.Code != "validation_failed" || len(e.Details) != 1 || len(e.Details[0].Loc) != 2 || e.Details[0].Loc[1] != "name" {
				t.Errorf("%s: %+v", name, e)
			}
		}
	})
	t.Run("api_id must name a usable flow, createWorker and org must exist for the caller", func(t *testing.T) {
		t.Parallel()
		for name, c := range map[string]struct {
			params *v1api.CreateAppParams
			api    uuid.UUID
			status int
		}{
			"another organization's flow": {nil, foreignFlow, http.StatusBadRequest},
			"a random flow":               {nil, uuid.New(), http.StatusBadRequest},
			"a user of another org":       {&v1api.CreateAppParams{CreateWorker: new(outsiderEmail)}, flow, http.StatusNotFound},
			"an unknown user":             {&v1api.CreateAppParams{CreateWorker: new("nobody@example.com")}, flow, http.StatusNotFound},
		} {
			res, err := admin.V1.CreateAppWithResponse(ctx, c.params, v1api.AppInput{Name: new(name), ApiId: nullable.NewNullableWithValue(c.api)})
			appstest.Expect(t, res, err, c.status)
			if e := appstest.ErrorOf(t, res); c.status == http.StatusBadRequest && (len(e.Details) == 0 || e.Details[0].Loc[1] != "api_id") {
				t.Errorf("%s: error %+v does not name api_id", name, e)
			}
		}
		var n int
		_ = env.DB.Get(&n, `SELECT count(*) FROM apps WHERE organization_id = $1 AND name IN
			('another organization''s flow', 'a random flow', 'a user of another org', 'an unknown user')`, org)
		if n != 0 {
			t.Errorf("%d apps written by refused requests", n)
		}
	})
	t.Run("only backoffice names another organization", func(t *testing.T) {
		t.Parallel()
		res, err := admin.V1.CreateAppWithResponse(ctx, &v1api.CreateAppParams{Org: &other}, v1api.AppInput{Name: new("x")})
		appstest.Expect(t, res, err, http.StatusForbidden)
		create(t, admin, &v1api.CreateAppParams{Org: &org}, v1api.AppInput{Name: new("own org named")})

		bo := env.User(t, env.Org(t), auth.RoleBackoffice)
		a := create(t, bo, &v1api.CreateAppParams{Org: &other}, v1api.AppInput{Name: new("placed"), ApiId: nullable.NewNullableWithValue(foreignFlow)})
		if a.OrganizationId != other || *a.ApiId != foreignFlow {
			t.Errorf("got %+v", a)
		}
		res, err = bo.V1.CreateAppWithResponse(ctx, &v1api.CreateAppParams{Org: new(uuid.New())}, v1api.AppInput{Name: new("x")})
		appstest.Expect(t, res, err, http.StatusNotFound)
	})
	t.Run("without credentials", func(t *testing.T) {
		t.Parallel()
		res, err := env.V1.CreateAppWithResponse(ctx, nil, v1api.AppInput{Name: new("x")})
		appstest.Expect(t, res, err, http.StatusUnauthorized)
	})
}
