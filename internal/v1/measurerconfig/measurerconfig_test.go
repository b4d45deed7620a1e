package measurerconfig_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/apps/appstest"
)

var ctx = context.Background()

type fx struct {
	env              *testkit.Env
	org              uuid.UUID
	admin            *testkit.Caller
	manager, labeler *testkit.Caller
	app              uuid.UUID
}

func setup(t *testing.T) *fx {
	t.Helper()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	if err := credits.Grant(ctx, env.DB, org, 1000); err != nil {
		t.Fatal(err)
	}
	f := &fx{env: env, org: org, admin: env.KeyCaller(t, org, auth.RoleOrgAdmin),
		manager: env.User(t, org, auth.RoleAppUser), labeler: env.User(t, org, auth.RoleAppUser)}
	f.app = appstest.App(t, env.DB, org, "measured", nil)
	appstest.Member(t, env.DB, f.app, f.manager.UserID, "MANAGER")
	appstest.Member(t, env.DB, f.app, f.labeler.UserID, "LABELER")
	return f
}

func (f *fx) patch(t *testing.T, c *testkit.Caller, body v1api.MeasurerConfigurationUpdate, want int) *v1api.MeasurerConfiguration {
	t.Helper()
	res, err := c.V1.UpdateMeasurerConfigurationWithResponse(ctx, f.app, nil, body)
	appstest.Expect(t, res, err, want)
	return res.JSON200
}

func (f *fx) submit(t *testing.T, code *int64, want int) *v1api.SubmitJobResponse {
	t.Helper()
	res, err := f.admin.V1.SubmitJobWithResponse(ctx, f.app, &v1api.SubmitJobParams{Onboarding: code},
		v1api.JobInput{Input: json.RawMessage(`{"text": "measure me"}`)})
	appstest.Expect(t, res, err, want)
	return res
}

func TestConfiguration(t *testing.T) {
	t.Parallel()
	f := setup(t)

	// Never configured: the defaults, to any member.
	get, err := f.labeler.V1.GetMeasurerConfigurationWithResponse(ctx, f.app, nil)
	appstest.Expect(t, get, err, http.StatusOK)
	if c := get.JSON200; c.Enabled || len(c.Metrics) != 0 || len(c.Fields) != 0 || c.AcceptMeasurementJobs || c.OnboardingCode != nil ||
		c.State != "IDLE" || c.UpdatedAt != nil || len(c.BaselineTypes) != 2 || c.AppId != f.app {
		t.Fatalf("defaults %+v", c)
	}

	f.patch(t, f.labeler, v1api.MeasurerConfigurationUpdate{Enabled: new(true)}, http.StatusForbidden)
	on := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{Enabled: new(true), AcceptMeasurementJobs: new(true),
		Metrics: &[]v1api.MetricName{"accuracy", "f1"}, Fields: &[]string{"{label}", "{boxes.0.x}"},
		MeasureIntervalHours: nullable.NewNullableWithValue(24)}, http.StatusOK)
	if on.OnboardingCode == nil || *on.OnboardingCode < 0 || on.UpdatedAt == nil || len(on.Metrics) != 2 || on.Fields[1] != "{boxes.0.x}" ||
		on.MeasureIntervalHours == nil || *on.MeasureIntervalHours != 24 {
		t.Fatalf("enabled %+v", on)
	}
	// Left out keeps, null clears; the round (code) stays while measurement jobs stay on.
	kept := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{MeasureIntervalHours: nullable.NewNullNullable[int]()}, http.StatusOK)
	if kept.MeasureIntervalHours != nil || *kept.OnboardingCode != *on.OnboardingCode || len(kept.Metrics) != 2 || !kept.Enabled {
		t.Fatalf("partial update %+v", kept)
	}
	// Off withdraws the code; on again starts a new round.
	off := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{AcceptMeasurementJobs: new(false)}, http.StatusOK)
	if off.OnboardingCode != nil {
		t.Fatalf("code kept after measurement jobs were turned off: %+v", off)
	}
	again := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{AcceptMeasurementJobs: new(true)}, http.StatusOK)
	if again.OnboardingCode == nil || *again.OnboardingCode == *on.OnboardingCode {
		t.Fatalf("no new round: %+v", again)
	}

	// Prefer: return=minimal answers 204 and still applies the change.
	res, err := f.manager.V1.UpdateMeasurerConfigurationWithResponse(ctx, f.app,
		&v1api.UpdateMeasurerConfigurationParams{Prefer: new(v1api.UpdateMeasurerConfigurationParamsPrefer("return=minimal"))},
		v1api.MeasurerConfigurationUpdate{BaselineTypes: &[]v1api.BaselineDataType{"REVIEW"}})
	appstest.Expect(t, res, err, http.StatusNoContent)
	get, _ = f.labeler.V1.GetMeasurerConfigurationWithResponse(ctx, f.app, nil)
	if bt := get.JSON200.BaselineTypes; len(bt) != 1 || bt[0] != "REVIEW" {
		t.Fatalf("baseline types after the minimal update: %v", bt)
	}

	// Bad input names its place.
	for name, body := range map[string]string{
		"fields.0": `{"fields": ["{a..b}"]}`,
		"metrics":  `{"metrics": ["speed"]}`,
		"body":     `{}`,
	} {
		res, err := f.manager.V1.UpdateMeasurerConfigurationWithBodyWithResponse(ctx, f.app, nil, "application/json", stringsReader(body))
		appstest.Expect(t, res, err, http.StatusBadRequest)
		if e := appstest.ErrorOf(t, res); len(e.Details) == 0 {
			t.Errorf("%s: no details in %+v", name, e)
		}
	}

	// While performance is being calculated, changes wait.
	if _, err := f.env.DB.Exec(`UPDATE measurer_configurations SET state = 'CALCULATING' WHERE app_id = $1`, f.app); err != nil {
		t.Fatal(err)
	}
	f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{Enabled: new(false)}, http.StatusConflict)
}

// TestMeasurementJobs: the states of Document 1 §7 for POST jobs with onboarding.
func TestMeasurementJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	code := new(int64(42))

	// Not enabled / not accepted: 409.
	if e := appstest.ErrorOf(t, f.submit(t, code, http.StatusConflict)); e.Code != "conflict" {
		t.Fatalf("not accepted: %+v", e)
	}
	f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{Enabled: new(true), AcceptMeasurementJobs: new(true)}, http.StatusOK)
	// No metrics selected: 409.
	f.submit(t, code, http.StatusConflict)
	c := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{Metrics: &[]v1api.MetricName{"exact_match"}}, http.StatusOK)
	// Wrong code: 400 naming onboarding.
	wrong := *c.OnboardingCode + 1
	res := f.submit(t, &wrong, http.StatusBadRequest)
	if e := appstest.ErrorOf(t, res); len(e.Details) == 0 || e.Details[0].Loc[len(e.Details[0].Loc)-1] != "onboarding" {
		t.Fatalf("wrong code: %+v", e)
	}
	// The right code: 201, and the job belongs to the round.
	ok := f.submit(t, c.OnboardingCode, http.StatusCreated)
	var round *int64
	if err := f.env.DB.Get(&round, `SELECT onboarding_code FROM jobs WHERE app_id = $1 AND id = $2`, f.app, ok.JSON201.Id); err != nil {
		t.Fatal(err)
	}
	if round == nil || *round != *c.OnboardingCode {
		t.Fatalf("the job's round is %v, want %d", round, *c.OnboardingCode)
	}
	// An ordinary job is no measurement job.
	plain := f.submit(t, nil, http.StatusCreated)
	if err := f.env.DB.Get(&round, `SELECT onboarding_code FROM jobs WHERE app_id = $1 AND id = $2`, f.app, plain.JSON201.Id); err != nil || round != nil {
		t.Fatalf("an ordinary job has round %v (%v)", round, err)
	}
	// Performance being calculated: 409, even with the right code.
	if _, err := f.env.DB.Exec(`UPDATE measurer_configurations SET state = 'CALCULATING' WHERE app_id = $1`, f.app); err != nil {
		t.Fatal(err)
	}
	f.submit(t, c.OnboardingCode, http.StatusConflict)
	var n int
	if err := f.env.DB.Get(&n, `SELECT count(*) FROM jobs WHERE app_id = $1`, f.app); err != nil || n != 2 {
		t.Fatalf("%d jobs stored, want the 2 accepted (%v)", n, err)
	}
}

// TestCloneCopiesTheConfiguration: a clone carries the settings in a round of its own, never the state.
func TestCloneCopiesTheConfiguration(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src := f.patch(t, f.manager, v1api.MeasurerConfigurationUpdate{Enabled: new(true), AcceptMeasurementJobs: new(true),
		Metrics: &[]v1api.MetricName{"precision"}}, http.StatusOK)
	if _, err := f.env.DB.Exec(`UPDATE measurer_configurations SET state = 'READY' WHERE app_id = $1`, f.app); err != nil {
		t.Fatal(err)
	}
	for _, include := range []bool{true, false} {
		res, err := f.admin.V1.CloneAppWithResponse(ctx, f.app, nil, v1api.AppClone{IncludeMeasurerConfiguration: new(include)})
		appstest.Expect(t, res, err, http.StatusOK)
		get, err := f.admin.V1.GetMeasurerConfigurationWithResponse(ctx, res.JSON200.Id, nil)
		appstest.Expect(t, get, err, http.StatusOK)
		c := get.JSON200
		if !include {
			if c.Enabled || c.UpdatedAt != nil {
				t.Fatalf("copied although include_measurer_configuration=false: %+v", c)
			}
			continue
		}
		if !c.Enabled || !c.AcceptMeasurementJobs || len(c.Metrics) != 1 || c.State != "IDLE" || c.OnboardingCode == nil ||
			*c.OnboardingCode == *src.OnboardingCode {
			t.Fatalf("copy %+v of %+v", c, src)
		}
	}
}

// TestTenancy: another organization's app answers like a missing one.
func TestTenancy(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other := f.env.KeyCaller(t, f.env.Org(t), auth.RoleOrgAdmin)
	got, err := other.V1.GetMeasurerConfigurationWithResponse(ctx, f.app, nil)
	if err != nil {
		t.Fatal(err)
	}
	missing, err := other.V1.GetMeasurerConfigurationWithResponse(ctx, uuid.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	appstest.SameAsMissing(t, got, missing)
	patched, err := other.V1.UpdateMeasurerConfigurationWithResponse(ctx, f.app, nil, v1api.MeasurerConfigurationUpdate{Enabled: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	appstest.SameAsMissing(t, patched, missing)
	res, err := other.V1.SubmitJobWithResponse(ctx, f.app, &v1api.SubmitJobParams{Onboarding: new(int64(1))},
		v1api.JobInput{Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	appstest.SameAsMissing(t, res, missing)
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
