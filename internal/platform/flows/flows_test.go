package flows_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCreateAndRead: a new flow is version 1, a draft visible to its organization; its reply carries the
// problems (none) and the task order, and a read adds the four expansions on request.
func TestCreateAndRead(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)

	f := createFlow(t, user.API, "Invoices", validDef, nil)
	if f.Version != 1 || f.Status != platformapi.Draft || !f.IsLatest || f.OrganizationId != org ||
		f.Visibility == nil || *f.Visibility != platformapi.Organization || f.ModifiedBy != user.UserID.String() ||
		f.FlowExecutionsCount != 0 || f.Settings != nil || f.Description != nil {
		t.Fatalf("created %+v", f)
	}
	if f.ValidationErrors == nil || len(*f.ValidationErrors) != 0 {
		t.Fatalf("validation_errors %v, want an empty list", f.ValidationErrors)
	}
	if f.TaskNames == nil || !reflect.DeepEqual(*f.TaskNames, []string{"extract", "check", "review"}) {
		t.Fatalf("task_names %v", f.TaskNames)
	}

	// A plain read carries no expansions.
	st, got := getStatus(t, user.API, f.Id)
	if st != http.StatusOK || got.TaskNames != nil || got.ValidationErrors != nil || got.DisplayName != "Invoices" {
		t.Fatalf("read %d %+v", st, got)
	}
	if !reflect.DeepEqual(got.Definition, def(t, validDef)) {
		t.Fatalf("definition read back as %v", got.Definition)
	}

	yes := true
	res, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{IncludeOrderedTaskNames: &yes,
		IncludeValidationErrors: &yes, IncludeDynamicData: &yes, IncludeOutputSchemas: &yes})
	testkit.Expect(t, res, err, http.StatusOK)
	x := res.JSON200
	if x.TaskNames == nil || len(*x.TaskNames) != 3 || x.ValidationErrors == nil || len(*x.ValidationErrors) != 0 {
		t.Fatalf("expanded %v %v", x.TaskNames, x.ValidationErrors)
	}
	for _, task := range x.Definition["tasks"].([]any) {
		m := task.(map[string]any)
		if _, ok := m["output_schema"].(map[string]any); !ok {
			t.Errorf("task %v has no output_schema", m["name"])
		}
		if _, ok := m["dynamic_data"].(map[string]any); !ok {
			t.Errorf("task %v has no dynamic_data", m["name"])
		}
	}
}

// TestDynamicDataNamesModels: an llm task's dynamic data offers the configured models.
func TestDynamicDataNamesModels(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	f := createFlow(t, user.API, "Ask", `{"version": 1, "tasks": [{"name": "ask", "type": "llm",
		"parameters": {"prompt": "Summarise the document."}}], "edges": []}`, nil)
	yes := true
	res, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{IncludeDynamicData: &yes})
	testkit.Expect(t, res, err, http.StatusOK)
	raw, _ := json.Marshal(res.JSON200.Definition["tasks"])
	if !json.Valid(raw) || !strings.Contains(string(raw), "loopwork-builtin") {
		t.Fatalf("llm dynamic data does not offer the built-in model: %s", raw)
	}
}

// TestInvalidDefinitionIsStored: a definition with problems is saved as a draft and its problems are
// reported with their locations, on create and on every read that asks.
func TestInvalidDefinitionIsStored(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	f := createFlow(t, user.API, "Broken", brokenDef, nil)
	want := map[string]string{
		`["definition","tasks",1,"type"]`:   "unknown_task_type",
		`["definition","edges",0,"target"]`: "unknown_task",
	}
	check := func(what string, errs *[]platformapi.ErrorDetails) {
		t.Helper()
		if errs == nil || len(*errs) != len(want) {
			t.Fatalf("%s: validation_errors %+v, want %v", what, errs, want)
		}
		for _, e := range *errs {
			if want[locString(e.Loc)] != e.Type {
				t.Errorf("%s: unexpected problem %s %s (%s)", what, locString(e.Loc), e.Type, e.Msg)
			}
		}
	}
	check("create", f.ValidationErrors)
	if f.TaskNames != nil {
		t.Errorf("task_names %v for a graph with a dangling edge", *f.TaskNames)
	}
	yes := true
	res, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{IncludeValidationErrors: &yes})
	testkit.Expect(t, res, err, http.StatusOK)
	check("read", res.JSON200.ValidationErrors)
	var valid bool
	if err := env.DB.Get(&valid, `SELECT valid FROM flow_versions WHERE flow_id = $1`, f.Id); err != nil || valid {
		t.Fatalf("stored valid = %v (%v)", valid, err)
	}
}

// TestCreateRefusals: what the contract or the limits refuse is not stored.
func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	for name, body := range map[string]string{
		"blank name":       `{"display_name": "   ", "definition": {}}`,
		"long name":        `{"display_name": "` + strings.Repeat("n", 256) + `", "definition": {}}`,
		"no definition":    `{"display_name": "x"}`,
		"array definition": `{"display_name": "x", "definition": []}`,
		"bad visibility":   `{"display_name": "x", "definition": {}, "visibility": "everyone"}`,
	} {
		res, err := user.API.CreateFlowWithBodyWithResponse(ctx, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d: %s", name, res.StatusCode(), res.Body)
		}
	}
	anon, _ := env.Clients(t, "")
	res, err := anon.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "x", Definition: json.RawMessage(validDef)})
	testkit.Expect(t, res, err, http.StatusUnauthorized)
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM flows WHERE organization_id = $1`, org); err != nil || n != 0 {
		t.Fatalf("%d flows written by refused requests (%v)", n, err)
	}
}

// TestDynamicDataNamesCredentials: an http_request task's dynamic data offers the organization's
// credentials and a sql_query task its SQL databases — by id and name, another organization's never.
func TestDynamicDataNamesCredentials(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	stranger := env.User(t, env.Org(t), auth.RoleAppUser)
	var own string
	for _, c := range []*testkit.Caller{user, stranger} {
		res, err := c.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "db of " + c.Email,
			Provider: "sql_database", CredentialType: "user_password", Data: &map[string]any{"host": "db.example.com",
				"database": "d", "username": "u", "password": "p"}})
		testkit.Expect(t, res, err, http.StatusCreated)
		if c == user {
			own = res.JSON201.Id.String()
		}
	}
	f := createFlow(t, user.API, "Query", `{"version": 1, "tasks": [{"name": "q", "type": "sql_query",
		"parameters": {"database_id": "`+own+`", "query": "SELECT 1"}},
		{"name": "h", "type": "http_request", "parameters": {"url": "https://example.com"}}], "edges": []}`, nil)
	yes := true
	res, err := user.API.GetFlowWithResponse(ctx, f.Id, &platformapi.GetFlowParams{IncludeDynamicData: &yes})
	testkit.Expect(t, res, err, http.StatusOK)
	raw, _ := json.Marshal(res.JSON200.Definition["tasks"])
	if !strings.Contains(string(raw), "db of "+user.Email) || strings.Contains(string(raw), stranger.Email) {
		t.Fatalf("dynamic data: %s", raw)
	}
}

// TestVariablesAndWarningsInReplies: a definition whose expression reads a task that does not run before
// it is reported at the expression; an unguarded edge beside a branch is a warning, and warnings do not
// keep a flow from being published.
func TestVariablesAndWarningsInReplies(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	def := `{"version": 1, "tasks": [
		{"name": "extract", "type": "transform", "parameters": {"expression": "{total: $input.total}"}},
		{"name": "big", "type": "condition", "parameters": {"expression": ".total > 100"}},
		{"name": "review", "type": "human_review", "parameters": {"review_of": "extract"}},
		{"name": "post", "type": "transform", "parameters": {"expression": "{total: $tasks.extract.total, by: $tasks.post2}"}},
		{"name": "post2", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "extract", "target": "big"}, {"source": "big", "target": "review"},
			{"source": "big", "target": "post", "branch": false}, {"source": "review", "target": "post"},
			{"source": "extract", "target": "post"}, {"source": "post", "target": "post2"}]}`
	f := createFlow(t, user.API, "vars", def, nil)
	errs, warns := *f.ValidationErrors, *f.ValidationWarnings
	if len(errs) != 1 || errs[0].Type != "task_not_upstream" || fmt.Sprint(errs[0].Loc) != "[definition tasks 3 parameters expression]" {
		t.Fatalf("errors %+v", errs)
	}
	if len(warns) != 1 || warns[0].Type != "unguarded_edge" || fmt.Sprint(warns[0].Loc) != "[definition edges 4]" {
		t.Fatalf("warnings %+v", warns)
	}
	fixed := strings.Replace(strings.Replace(def, `, by: $tasks.post2`, ``, 1), `{"source": "extract", "target": "post"}, `, ``, 1)
	status := platformapi.Published
	res, err := user.API.UpdateFlowWithResponse(ctx, f.Id, platformapi.FlowUpdateRequest{Definition: json.RawMessage(fixed), Status: &status})
	testkit.Expect(t, res, err, http.StatusOK)
	if got := res.JSON200; len(*got.ValidationErrors) != 0 || len(*got.ValidationWarnings) != 0 || got.Status != status {
		t.Fatalf("fixed: errors %+v, warnings %+v, status %s", *got.ValidationErrors, *got.ValidationWarnings, got.Status)
	}
}
