package flows_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestVersions: a PUT or PUT definition with a new definition saves the next version, a PATCH changes the
// latest version in place, older versions stay readable, a patch that changes nothing writes nothing, and
// finished executions of older versions become stale.
func TestVersions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	f := createFlow(t, user.API, "Invoices", validDef, nil)
	var done string
	if err := env.DB.Get(&done, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		VALUES ($1, $2, 1, 'completed', 1) RETURNING id`, org, f.Id); err != nil {
		t.Fatal(err)
	}

	put, err := user.API.UpdateFlowWithResponse(ctx, f.Id, platformapi.FlowUpdateRequest{Definition: json.RawMessage(brokenDef),
		Description: new("Reads invoices.")})
	testkit.Expect(t, put, err, http.StatusOK)
	v2 := put.JSON200
	if v2.Version != 2 || !v2.IsLatest || v2.DisplayName != "Invoices" || *v2.Description != "Reads invoices." ||
		v2.ValidationErrors == nil || len(*v2.ValidationErrors) != 2 || v2.FlowExecutionsCount != 1 {
		t.Fatalf("PUT answered %+v", v2)
	}
	var status string
	if err := env.DB.Get(&status, `SELECT status FROM flow_executions WHERE id = $1`, done); err != nil || status != "stale" {
		t.Fatalf("a completed execution of version 1 is %q after an update (%v)", status, err)
	}

	same, err := user.API.ModifyFlowWithResponse(ctx, f.Id, platformapi.PatchFlowRequest{DisplayName: new("Invoices")})
	testkit.Expect(t, same, err, http.StatusOK)
	if same.JSON200.Version != 2 {
		t.Fatalf("a patch that changes nothing saved version %d", same.JSON200.Version)
	}
	patch, err := user.API.ModifyFlowWithResponse(ctx, f.Id, platformapi.PatchFlowRequest{DisplayName: new("Invoice reader"),
		Description: new("")})
	testkit.Expect(t, patch, err, http.StatusOK)
	if v2 := patch.JSON200; v2.Version != 2 || v2.DisplayName != "Invoice reader" || v2.Description != nil ||
		!reflect.DeepEqual(v2.Definition, def(t, brokenDef)) {
		t.Fatalf("PATCH answered %+v", v2)
	}
	pd, err := user.API.UpdateFlowDefinitionWithResponse(ctx, f.Id, platformapi.FlowDefinitionUpdate{Definition: json.RawMessage(validDef)})
	testkit.Expect(t, pd, err, http.StatusOK)
	if v3 := pd.JSON200; v3.Version != 3 || v3.DisplayName != "Invoice reader" || len(*v3.ValidationErrors) != 0 {
		t.Fatalf("PUT definition answered %+v", v3)
	}
	// Version 2, superseded, keeps the attributes it had then.
	second, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{Version: new(2)})
	testkit.Expect(t, second, err, http.StatusOK)
	if v2 := second.JSON200; v2.IsLatest || v2.DisplayName != "Invoice reader" || !reflect.DeepEqual(v2.Definition, def(t, brokenDef)) {
		t.Fatalf("version 2 reads as %+v", v2)
	}

	old, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{Version: new(1)})
	testkit.Expect(t, old, err, http.StatusOK)
	if v1 := old.JSON200; v1.Version != 1 || v1.IsLatest || v1.Description != nil || !reflect.DeepEqual(v1.Definition, def(t, validDef)) {
		t.Fatalf("version 1 reads as %+v", v1)
	}
	missing, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{Version: new(4)})
	testkit.Expect(t, missing, err, http.StatusNotFound)

	list, err := user.API.ListFlowVersionsWithResponse(ctx, f.Id, &platformapi.ListFlowVersionsParams{Limit: new(2)})
	testkit.Expect(t, list, err, http.StatusOK)
	var numbers []int
	for _, v := range *list.JSON200 {
		numbers = append(numbers, v.Version)
		if v.IsLatest != (v.Version == 3) {
			t.Errorf("version %d is_latest %v", v.Version, v.IsLatest)
		}
	}
	if !reflect.DeepEqual(numbers, []int{3, 2}) {
		t.Fatalf("first page of versions %v", numbers)
	}
	page2, err := user.API.ListFlowVersionsWithResponse(ctx, f.Id, &platformapi.ListFlowVersionsParams{Limit: new(2), Page: new(2)})
	testkit.Expect(t, page2, err, http.StatusOK)
	if len(*page2.JSON200) != 1 || (*page2.JSON200)[0].Version != 1 {
		t.Fatalf("second page of versions %+v", *page2.JSON200)
	}
}

// TestPublishing: a published version is always valid, so publishing problems answers 422 and saves
// nothing, while a draft may be saved with them.
func TestPublishing(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	published := platformapi.Published

	broken := createFlow(t, user.API, "Broken", brokenDef, nil)
	res, err := user.API.ModifyFlowWithResponse(ctx, broken.Id, platformapi.PatchFlowRequest{Status: &published})
	if err != nil {
		t.Fatal(err)
	}
	items := validation(t, res)
	if locString(items[0].Loc) != `["body","status"]` || len(items) != 3 {
		t.Fatalf("publishing an invalid flow: %+v", items)
	}
	if _, got := getStatus(t, user.API, broken.Id); got.Version != 1 || got.Status != platformapi.Draft {
		t.Fatalf("a refused publish changed the flow: %+v", got)
	}

	good := createFlow(t, user.API, "Good", validDef, nil)
	pub, err := user.API.ModifyFlowWithResponse(ctx, good.Id, platformapi.PatchFlowRequest{Status: &published})
	testkit.Expect(t, pub, err, http.StatusOK)
	if pub.JSON200.Status != platformapi.Published || pub.JSON200.Version != 1 {
		t.Fatalf("publish answered %+v (publishing is no new version)", pub.JSON200)
	}
	// A published flow keeps its status on PUT, so an invalid definition is refused ...
	put, err := user.API.UpdateFlowWithResponse(ctx, good.Id, platformapi.FlowUpdateRequest{Definition: json.RawMessage(brokenDef)})
	if err != nil {
		t.Fatal(err)
	}
	items = validation(t, put)
	if locString(items[1].Loc) != `["body","definition","tasks",1,"type"]` {
		t.Fatalf("refused PUT reports %+v", items)
	}
	// ... unless the new version is a draft.
	draft := platformapi.Draft
	put, err = user.API.UpdateFlowWithResponse(ctx, good.Id, platformapi.FlowUpdateRequest{Definition: json.RawMessage(brokenDef), Status: &draft})
	testkit.Expect(t, put, err, http.StatusOK)
	if put.JSON200.Version != 2 || put.JSON200.Status != platformapi.Draft {
		t.Fatalf("PUT as a draft answered %+v", put.JSON200)
	}
}
