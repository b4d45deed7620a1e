package flows_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestAttributesChangeInPlace: a change of visibility, description, name, status or settings, by PATCH or
// by a PUT that sends the definition back unchanged, is made on the latest version in place: no version is
// added and no execution becomes stale. Only a new definition, through PUT or PUT definition, saves a
// version and makes the finished executions of older versions stale; the superseded version keeps the
// attributes it had.
func TestAttributesChangeInPlace(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	f := createFlow(t, owner.API, "Invoices", validDef, nil)

	runs := 0
	run := func(version int, status string) uuid.UUID {
		t.Helper()
		runs++
		var id uuid.UUID
		if err := env.DB.Get(&id, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, org, f.Id, version, status, runs); err != nil {
			t.Fatal(err)
		}
		return id
	}
	statusOf := func(id uuid.UUID) string {
		t.Helper()
		var s string
		if err := env.DB.Get(&s, `SELECT status FROM flow_executions WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return s
	}
	versions := func() int {
		t.Helper()
		var n int
		if err := env.DB.Get(&n, `SELECT count(*) FROM flow_versions WHERE flow_id = $1`, f.Id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	done, failed, running := run(1, "completed"), run(1, "failed"), run(1, "running")
	unchanged := func(what string) {
		t.Helper()
		if n := versions(); n != 1 {
			t.Fatalf("after %s the flow has %d versions, want 1", what, n)
		}
		if a, b, c := statusOf(done), statusOf(failed), statusOf(running); a != "completed" || b != "failed" || c != "running" {
			t.Fatalf("after %s the executions are %s, %s, %s", what, a, b, c)
		}
	}

	published, private := platformapi.Published, platformapi.Private
	patches := []struct {
		name string
		body platformapi.PatchFlowRequest
	}{
		{"visibility", platformapi.PatchFlowRequest{Visibility: &private}},
		{"description", platformapi.PatchFlowRequest{Description: new("Reads invoices.")}},
		{"display name", platformapi.PatchFlowRequest{DisplayName: new("Invoice reader")}},
		{"publishing", platformapi.PatchFlowRequest{Status: &published}},
		{"settings", platformapi.PatchFlowRequest{Settings: &platformapi.FlowSettings{
			Ttl: &platformapi.TTLSettings{CompletedAfterSeconds: new(86400)}}}},
	}
	for _, p := range patches {
		res, err := admin.API.ModifyFlowWithResponse(ctx, f.Id, p.body)
		testkit.Expect(t, res, err, http.StatusOK)
		if got := res.JSON200; got.Version != 1 || !got.IsLatest || got.ModifiedBy != admin.UserID.String() {
			t.Fatalf("PATCH %s answered version %d (latest %v) modified by %s", p.name, got.Version, got.IsLatest, got.ModifiedBy)
		}
		unchanged("PATCH " + p.name)
	}
	_, latest := getStatus(t, owner.API, f.Id)
	if latest.Status != published || *latest.Visibility != private || *latest.Description != "Reads invoices." ||
		latest.DisplayName != "Invoice reader" || latest.Settings == nil || latest.Settings.Ttl == nil {
		t.Fatalf("after the patches the flow reads as %+v", latest)
	}
	// The list reads the flow row, which follows the version changed in place.
	list, err := owner.API.ListFlowsWithResponse(ctx, &platformapi.ListFlowsParams{Status: &published, Search: new("invoice reader")})
	testkit.Expect(t, list, err, http.StatusOK)
	if l := list.JSON200.Flows; len(l) != 1 || l[0].Id != f.Id {
		t.Fatalf("published flows named so: %+v", l)
	}
	// Whose credential rights the version's attempts check is still its saver's, not the patcher's.
	var saver string
	if err := env.DB.Get(&saver, `SELECT saved_by FROM flow_versions WHERE flow_id = $1 AND version = 1`, f.Id); err != nil ||
		saver != owner.UserID.String() {
		t.Fatalf("version 1 saved by %q (%v), want its creator", saver, err)
	}

	// A PUT that sends back the definition it read is no new definition either.
	same, err := json.Marshal(latest.Definition)
	if err != nil {
		t.Fatal(err)
	}
	put, err := owner.API.UpdateFlowWithResponse(ctx, f.Id, platformapi.FlowUpdateRequest{Definition: same, Description: new("Checks totals.")})
	testkit.Expect(t, put, err, http.StatusOK)
	if put.JSON200.Version != 1 || *put.JSON200.Description != "Checks totals." {
		t.Fatalf("PUT of the same definition answered %+v", put.JSON200)
	}
	unchanged("PUT of the same definition")

	// A new definition is a new version, through PUT ...
	changed := `{"version": 1, "tasks": [{"name": "extract", "type": "transform", "parameters": {"expression": "."}}], "edges": []}`
	put, err = owner.API.UpdateFlowWithResponse(ctx, f.Id, platformapi.FlowUpdateRequest{Definition: json.RawMessage(changed)})
	testkit.Expect(t, put, err, http.StatusOK)
	if put.JSON200.Version != 2 || versions() != 2 {
		t.Fatalf("PUT of a new definition answered version %d, %d versions", put.JSON200.Version, versions())
	}
	if a, b, c := statusOf(done), statusOf(failed), statusOf(running); a != "stale" || b != "stale" || c != "running" {
		t.Fatalf("after a new definition the executions are %s, %s, %s; want stale, stale, running", a, b, c)
	}
	// ... which leaves version 1 with the attributes it had, and later patches change version 2 alone.
	patch, err := owner.API.ModifyFlowWithResponse(ctx, f.Id, platformapi.PatchFlowRequest{DisplayName: new("Totals")})
	testkit.Expect(t, patch, err, http.StatusOK)
	first, err := owner.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{Version: new(1)})
	testkit.Expect(t, first, err, http.StatusOK)
	if v1 := first.JSON200; v1.IsLatest || v1.DisplayName != "Invoice reader" || *v1.Description != "Checks totals." ||
		v1.Status != published || !reflect.DeepEqual(v1.Definition, def(t, validDef)) {
		t.Fatalf("version 1 reads as %+v", v1)
	}

	// ... and through PUT definition.
	later := run(2, "completed")
	pd, err := owner.API.UpdateFlowDefinitionWithResponse(ctx, f.Id, platformapi.FlowDefinitionUpdate{Definition: json.RawMessage(validDef)})
	testkit.Expect(t, pd, err, http.StatusOK)
	if v3 := pd.JSON200; v3.Version != 3 || v3.DisplayName != "Totals" || statusOf(later) != "stale" {
		t.Fatalf("PUT definition answered version %d named %q; the execution of version 2 is %s", v3.Version, v3.DisplayName, statusOf(later))
	}
}
