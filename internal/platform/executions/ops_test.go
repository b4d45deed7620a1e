package executions_test

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// waitDef keeps an execution running as long as a test needs: nobody claims its external tasks unless
// the test does, so "after" never starts.
const waitDef = `{"version": 1, "tasks": [{"name": "a", "type": "external"}, {"name": "b", "type": "external"},
	{"name": "after", "type": "transform", "parameters": {"expression": "."}}],
	"edges": [{"source": "a", "target": "after"}, {"source": "b", "target": "after"}]}`

// invalidFlow saves a flow whose only task has a type that does not exist (it has validation errors).
func invalidFlow(t testing.TB, c *testkit.Caller) uuid.UUID {
	t.Helper()
	res, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "bad",
		Definition: json.RawMessage(`{"version": 1, "tasks": [{"name": "x", "type": "nap"}], "edges": []}`)})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

// byID calls get, delete and stop on one execution id.
func byID(api *platformapi.ClientWithResponses, id uuid.UUID) map[string]func() (testkit.Reply, error) {
	return map[string]func() (testkit.Reply, error){
		"get":    func() (testkit.Reply, error) { return api.GetFlowExecutionWithResponse(ctx, id, nil) },
		"delete": func() (testkit.Reply, error) { return api.DeleteFlowExecutionWithResponse(ctx, id) },
		"stop":   func() (testkit.Reply, error) { return api.StopFlowExecutionWithResponse(ctx, id) },
	}
}

// bodyOf is a reply's JSON body without request_id, which differs on every request.
func bodyOf(t testing.TB, res testkit.Reply) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(testkit.Body(res), &m); err != nil {
		t.Fatalf("status %d, body is not JSON: %s", res.StatusCode(), testkit.Body(res))
	}
	delete(m, "request_id")
	return m
}

// rawCall sends what the generated client cannot: a malformed id in the path.
func rawCall(t testing.TB, env *testkit.Env, c *testkit.Caller, method, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, env.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	res, err := env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// listIDs lists executions and returns their ids in the order listed, and the reply.
func listIDs(t testing.TB, c *testkit.Caller, p platformapi.ListFlowExecutionsParams) ([]uuid.UUID, *platformapi.FlowExecutionListResponse) {
	t.Helper()
	res, err := c.API.ListFlowExecutionsWithResponse(ctx, &p)
	testkit.Expect(t, res, err, http.StatusOK)
	ids := []uuid.UUID{}
	for _, x := range res.JSON200.FlowExecutions {
		ids = append(ids, x.Id)
	}
	return ids, res.JSON200
}

// TestEveryOperationByStatus: each documented status of start, list, get, delete and stop, through the
// generated client.
func TestEveryOperationByStatus(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other, poor := env.Org(t), env.Org(t), env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	anon, _ := env.Clients(t, "")
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, owner, waitDef, platformapi.Organization)
	x := start(t, owner, flow, map[string]any{"n": 1})
	if x.Status != platformapi.ExecutionStatusQueued || x.FlowId != flow || x.FlowVersion != 1 || x.OrganizationId != org ||
		x.Input["n"] != 1.0 || x.StartedAt != nil || x.FinishedAt != nil || x.Error != nil {
		t.Fatalf("201 %+v", x)
	}

	// 401 everywhere without credentials, and nothing changes.
	sres, err := anon.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{}})
	testkit.Expect(t, sres, err, http.StatusUnauthorized)
	lres, err := anon.ListFlowExecutionsWithResponse(ctx, nil)
	testkit.Expect(t, lres, err, http.StatusUnauthorized)
	for _, op := range []string{"get", "delete", "stop"} {
		res, err := byID(anon, x.Id)[op]()
		testkit.Expect(t, res, err, http.StatusUnauthorized)
	}
	// 403: a caller who neither started the execution nor may change its flow; a public flow of another org.
	for _, op := range []string{"delete", "stop"} {
		res, err := byID(colleague.API, x.Id)[op]()
		testkit.Expect(t, res, err, http.StatusForbidden)
	}
	public := testkit.NewFlowSeenBy(t, env.User(t, other, auth.RoleAppUser), waitDef, platformapi.Public)
	sres, err = owner.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: public, Input: map[string]any{}})
	testkit.Expect(t, sres, err, http.StatusForbidden)

	// 200 for reads; the refused calls left the execution as it was.
	got, err := colleague.API.GetFlowExecutionWithResponse(ctx, x.Id, nil)
	testkit.Expect(t, got, err, http.StatusOK)
	if g := got.JSON200; g.Id != x.Id || g.RunNumber != nil || g.Error != nil ||
		(g.Status != platformapi.ExecutionStatusQueued && g.Status != platformapi.ExecutionStatusRunning) {
		t.Fatalf("read %+v", g)
	}
	ids, page := listIDs(t, colleague, platformapi.ListFlowExecutionsParams{})
	if !reflect.DeepEqual(ids, []uuid.UUID{x.Id}) || page.Total != 1 || page.Page != 1 || page.Limit != 20 {
		t.Fatalf("list %v %+v", ids, page)
	}

	// 404 for a flow or an execution that does not exist.
	sres, err = owner.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: uuid.New(), Input: map[string]any{}})
	testkit.Expect(t, sres, err, http.StatusNotFound)
	for _, op := range []string{"get", "delete", "stop"} {
		res, err := byID(owner.API, uuid.New())[op]()
		testkit.Expect(t, res, err, http.StatusNotFound)
		if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "not_found" {
			t.Fatalf("%s: 404 %+v", op, e)
		}
	}
	// 402 without credits, 409 for a flow with validation errors.
	broke := env.User(t, poor, auth.RoleAppUser)
	sres, err = broke.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{
		FlowId: testkit.NewFlowSeenBy(t, broke, waitDef, platformapi.Organization), Input: map[string]any{}})
	testkit.Expect(t, sres, err, http.StatusPaymentRequired)
	if e := testkit.ErrorOf(t, sres); e.Code == nil || *e.Code != "insufficient_credits" {
		t.Fatalf("402 %+v", e)
	}
	sres, err = owner.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: invalidFlow(t, owner), Input: map[string]any{}})
	testkit.Expect(t, sres, err, http.StatusConflict)

	// 422 for what the contract refuses, naming where; 400 for flow_version without flow_id.
	for body, loc := range map[string]string{`{"flow_id": "` + flow.String() + `"}`: `"input"`, `{"flow_id": "x", "input": {}}`: `"flow_id"`,
		`{"flow_id": "` + flow.String() + `", "input": []}`: `"input"`} {
		res, err := owner.API.StartFlowExecutionWithBodyWithResponse(ctx, "application/json", strings.NewReader(body))
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		if !strings.Contains(string(res.Body), `"loc":["body",`+loc) {
			t.Fatalf("422 for %s does not name %s: %s", body, loc, res.Body)
		}
	}
	for loc, p := range map[string]platformapi.ListFlowExecutionsParams{"limit": {Limit: new(101)}, "page": {Page: new(0)},
		"status": {Status: new(platformapi.ExecutionStatus("stopped"))}} {
		res, err := owner.API.ListFlowExecutionsWithResponse(ctx, &p)
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		if !strings.Contains(string(res.Body), `"loc":["query","`+loc+`"]`) {
			t.Fatalf("422 does not name %s: %s", loc, res.Body)
		}
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if code, body := rawCall(t, env, owner, m, "/api/flow-executions/not-a-uuid"); code != http.StatusUnprocessableEntity ||
			!strings.Contains(body, `"loc":["path","id"]`) {
			t.Fatalf("%s of a malformed id: %d %s", m, code, body)
		}
	}
	if code, body := rawCall(t, env, owner, http.MethodPost, "/api/flow-executions/not-a-uuid/stop"); code != http.StatusUnprocessableEntity {
		t.Fatalf("stop of a malformed id: %d %s", code, body)
	}
	lres, err = owner.API.ListFlowExecutionsWithResponse(ctx, &platformapi.ListFlowExecutionsParams{FlowVersion: new(1)})
	testkit.Expect(t, lres, err, http.StatusBadRequest)

	// 200 for a stop by the starter, 204 for a delete by a service account (again after it), 409 to stop it then.
	y := start(t, owner, flow, map[string]any{})
	stop, err := owner.API.StopFlowExecutionWithResponse(ctx, y.Id)
	testkit.Expect(t, stop, err, http.StatusOK)
	if s := stop.JSON200; s.Id != y.Id || s.Status != platformapi.ExecutionStatusFailed || s.Error == nil || s.Error.Type != "stopped" ||
		s.Error.Task != nil || s.FinishedAt == nil {
		t.Fatalf("stopped %+v", s)
	}
	for range 2 {
		del, err := integ.API.DeleteFlowExecutionWithResponse(ctx, x.Id)
		testkit.Expect(t, del, err, http.StatusNoContent)
	}
	got, err = owner.API.GetFlowExecutionWithResponse(ctx, x.Id, nil)
	testkit.Expect(t, got, err, http.StatusOK)
	if got.JSON200.Status != platformapi.ExecutionStatusDeleted {
		t.Fatalf("a deleted execution reads %s", got.JSON200.Status)
	}
	stop, err = owner.API.StopFlowExecutionWithResponse(ctx, x.Id)
	testkit.Expect(t, stop, err, http.StatusConflict)
}

// TestOtherOrganizationsExecutionsAreMissing: another organization's execution answers get, delete and
// stop exactly like a random id, to every role (platform staff included), changes nothing, and is
// never listed.
func TestOtherOrganizationsExecutionsAreMissing(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	stranger := env.User(t, other, auth.RoleOrgAdmin)
	grant(t, env, org, 10)
	grant(t, env, other, 10)
	// A public flow: its definition may be read across organizations, its executions may not.
	theirFlow := testkit.NewFlowSeenBy(t, stranger, waitDef, platformapi.Public)
	theirs := start(t, stranger, theirFlow, map[string]any{})
	admin := env.User(t, org, auth.RoleOrgAdmin)
	mine := start(t, admin, testkit.NewFlowSeenBy(t, admin, waitDef, platformapi.Organization), map[string]any{})
	random := uuid.New()

	for _, c := range []*testkit.Caller{admin, env.User(t, org, auth.RoleBackoffice), env.KeyCaller(t, org, auth.RoleIntegration),
		env.User(t, org, auth.RoleAppUser)} {
		for op, call := range byID(c.API, theirs.Id) {
			got, err := call()
			if err != nil {
				t.Fatal(err)
			}
			missing, err := byID(c.API, random)[op]()
			if err != nil {
				t.Fatal(err)
			}
			if got.StatusCode() != http.StatusNotFound || missing.StatusCode() != http.StatusNotFound ||
				!reflect.DeepEqual(bodyOf(t, got), bodyOf(t, missing)) {
				t.Fatalf("%s %s: another organization's execution answers %d %s, a random id %d %s", c.Role, op,
					got.StatusCode(), testkit.Body(got), missing.StatusCode(), testkit.Body(missing))
			}
		}
		// Every role of the organization sees its own execution (the flow is shared with the organization).
		ids, page := listIDs(t, c, platformapi.ListFlowExecutionsParams{})
		if !reflect.DeepEqual(ids, []uuid.UUID{mine.Id}) || page.Total != 1 {
			t.Fatalf("%s lists %v (total %d), want only %s", c.Role, ids, page.Total, mine.Id)
		}
		ids, page = listIDs(t, c, platformapi.ListFlowExecutionsParams{FlowId: &theirFlow})
		if len(ids) != 0 || page.Total != 0 {
			t.Fatalf("%s lists %v of another organization's flow", c.Role, ids)
		}
	}
	got := testkit.WaitForExecution(t, stranger, theirs.Id, platformapi.ExecutionStatusQueued, platformapi.ExecutionStatusRunning)
	if got.Error != nil || got.FinishedAt != nil {
		t.Fatalf("the other organization's execution was changed: %+v", got)
	}
}
