package server_test

import (
	"fmt"
	"net/url"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// doubleFlow doubles the input's value in one task.
const doubleFlow = `{"version": 1, "tasks": [{"name": "double", "type": "transform", "parameters": {"expression": "{value: (.value * 2)}"}}], "edges": []}`

// reviewedFlow doubles the value, waits for a person to review it, and adds one.
func reviewedFlow(reviewer uuid.UUID) string {
	return fmt.Sprintf(`{"version": 1, "tasks": [
		{"name": "double", "type": "transform", "parameters": {"expression": "{value: (.value * 2)}"}},
		{"name": "review", "type": "human_review", "parameters": {"instructions": "Check the value.", "assigned_users": [%q]}},
		{"name": "after", "type": "transform", "parameters": {"expression": "{value: (.value + 1)}"}}
	], "edges": [{"source": "double", "target": "review"}, {"source": "review", "target": "after"}]}`, reviewer)
}

// identity signs a user in and out, and runs the organization, its users, keys and credits as staff.
func (s *scenario) identity(email string, orgID uuid.UUID) {
	s.api("GET", "/health/liveness", nil, 200)
	s.api("GET", "/health/readiness", nil, 200)
	s.api("GET", "/health/detailed", nil, 200)
	s.api("GET", "/auth/v1/.well-known/jwks.json", nil, 200)
	s.api("GET", "/api/auth/anon-key", nil, 200)
	anon := s.as("")
	tok := anon.api("POST", "/auth/v1/token?grant_type=password", map[string]any{"email": email, "password": testkit.Password}, 200)
	fresh := anon.api("POST", "/auth/v1/token?grant_type=refresh_token", map[string]any{"refresh_token": tok.str("refresh_token")}, 200)
	signedIn := s.as(fresh.str("access_token"))
	signedIn.api("GET", "/auth/v1/user", nil, 200)
	signedIn.api("GET", "/api/profile/me", nil, 200)
	signedIn.api("POST", "/auth/v1/logout", nil, 204)

	org := s.api("POST", "/api/admin/organizations", map[string]any{"name": "prism org " + uuid.NewString()[:8]}, 201)
	s.ids["organizations/{id}"] = org.str("id")
	s.api("GET", "/api/admin/organizations", nil, 200)
	s.api("PUT", "/api/admin/organizations/"+org.str("id"), map[string]any{"name": "prism org renamed " + uuid.NewString()[:8]}, 200)
	user := s.api("POST", "/api/admin/organizations/"+org.str("id")+"/users", map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "email": "ada-" + uuid.NewString()[:8] + "@example.com", "role": "app_user"}, 201)
	s.ids["users/{id}"] = user.str("id")
	s.api("GET", "/api/admin/organizations/"+org.str("id")+"/users", nil, 200)
	s.api("POST", "/api/auth/resend-invite", map[string]any{"email": user.str("email")}, 200)
	s.api("POST", "/api/admin/users", map[string]any{"first_name": "Grace", "last_name": "Hopper",
		"email": "grace-" + uuid.NewString()[:8] + "@example.com", "role": "app_user", "organization_id": orgID}, 201)
	s.api("GET", "/api/admin/users?organization_id="+orgID.String(), nil, 200)
	s.api("PATCH", "/api/admin/users/"+user.str("id"), map[string]any{"first_name": "Augusta"}, 200)
	s.api("POST", "/api/admin/users/"+user.str("id")+"/deactivate", nil, 200)
	s.api("PATCH", "/api/admin/organizations/"+org.str("id")+"/deactivate", nil, 200)

	s.api("POST", "/api/admin/organizations/"+orgID.String()+"/credit-grants", map[string]any{"amount": 10000, "reason": "prism scenario"}, 201)
	s.api("GET", "/api/admin/organizations/"+orgID.String()+"/credit-grants", nil, 200)
	s.api("GET", "/api/credits/balance", nil, 200)
	product := s.api("POST", "/api/internal/products", map[string]any{"name": "tokens " + uuid.NewString()[:8], "unit": "token",
		"provider": "prism", "estimated_cost_per_unit": 0.001}, 201)
	s.ids["products/{id}"] = product.str("id")
	s.api("PATCH", "/api/internal/products/"+product.str("id"), map[string]any{"description": "model tokens"}, 200)
	s.api("GET", "/api/internal/products", nil, 200)

	key := s.api("POST", "/api/api-keys", map[string]any{"name": "prism key", "description": "for the scenario"}, 201)
	s.ids["api-keys/{id}"] = key.str("id")
	s.as(key.str("token")).api("GET", "/api/profile/me", nil, 200)
	s.api("GET", "/api/api-keys", nil, 200)
	s.api("GET", "/api/sso/lookup?email="+url.QueryEscape("someone@example.com"), nil, 200)
}

// flows creates flows with several versions, runs executions to their end, has one wait for a human
// review that the scenario then completes, and records task-level work and usage.
func (s *scenario) flows(me uuid.UUID) {
	flow := s.api("POST", "/api/flows", map[string]any{"display_name": "double", "definition": jsonRaw(doubleFlow), "visibility": "organization"}, 201)
	id := flow.str("id")
	s.ids["flows/{id}"], s.ids["{api_id}"], s.ids["flow_id"] = id, id, id
	s.api("PUT", "/api/flows/"+id, map[string]any{"definition": jsonRaw(doubleFlow), "description": "doubles", "settings": map[string]any{}}, 200)
	s.api("PUT", "/api/flows/"+id+"/definition", map[string]any{"definition": jsonRaw(doubleFlow)}, 200)
	s.api("PATCH", "/api/flows/"+id, map[string]any{"display_name": "double it", "status": "published"}, 200)
	s.api("GET", "/api/flows", nil, 200)
	s.api("GET", "/api/flows/"+id+"?include_dynamic_data=true&include_output_schemas=true", nil, 200)
	s.api("GET", "/api/flows/"+id+"/versions", nil, 200)

	x := s.api("POST", "/api/flow-executions", map[string]any{"flow_id": id, "input": map[string]any{"value": 21}}, 201)
	s.ids["flow-executions/{id}"], s.ids["flow_execution_id"] = x.str("id"), x.str("id")
	api, _ := s.clients()
	testkit.WaitForExecution(s.t, &testkit.Caller{API: api}, uuid.MustParse(x.str("id")), platformapi.ExecutionStatusCompleted)
	s.api("GET", "/api/flow-executions?flow_id="+id, nil, 200)
	s.api("GET", "/api/flow-executions/"+x.str("id")+"/task-statuses", nil, 200)
	s.api("GET", "/api/task-executions?flow_execution_id="+x.str("id"), nil, 200)
	s.api("POST", "/api/flow-executions/"+x.str("id")+"/task-statuses", map[string]any{"statuses": []any{map[string]any{"task_name": "double", "status": "checked"}}}, 201)
	s.api("PATCH", "/api/task-tags", map[string]any{"tags": []any{map[string]any{"operation": "add", "flow_execution_id": x.str("id"),
		"task_name": "double", "tag": "verified", "tag_type": "quality"}}}, 200)
	s.api("GET", "/api/task-tags?flow_execution_id="+x.str("id"), nil, 200)
	s.api("POST", "/api/usage", map[string]any{"flow_execution_id": x.str("id"), "product_id": s.ids["products/{id}"], "amount": 12}, 201)
	s.api("GET", "/api/usage?flow_execution_id="+x.str("id"), nil, 200)
	s.api("GET", "/api/usage/summary", nil, 200)
	view := s.api("POST", "/api/flow-views", map[string]any{"flow_id": id, "flow_version": 1, "view_name": "all",
		"view_data": map[string]any{"ordered_tasks": []string{"double"}}}, 201)
	s.ids["flow-views/{id}"] = view.str("id")
	s.api("PATCH", "/api/flow-views/"+view.str("id"), map[string]any{"view_name": "everything"}, 200)
	s.api("GET", "/api/flow-views?flow_id="+id, nil, 200)

	reviewed := s.api("POST", "/api/flows", map[string]any{"display_name": "reviewed", "definition": jsonRaw(reviewedFlow(me)), "visibility": "organization"}, 201)
	rx := s.api("POST", "/api/flow-executions", map[string]any{"flow_id": reviewed.str("id"), "input": map[string]any{"value": 1}}, 201)
	testkit.WaitForExecution(s.t, &testkit.Caller{API: api}, uuid.MustParse(rx.str("id")), platformapi.ExecutionStatusAwaitingInput)
	s.api("GET", "/api/human-review-assignments", nil, 200)
	tasks := s.api("GET", "/api/human-review-tasks?flow_execution_id="+rx.str("id"), nil, 200)
	for _, task := range tasks.list("human_review_tasks") {
		s.ids["human-review-tasks/{id}"] = task.str("id")
		s.api("GET", "/api/human-review-tasks/"+task.str("id")+"/assignments?include_user_info=true", nil, 200)
		s.api("POST", "/api/human-review-tasks/"+task.str("id")+"/start", nil, 200)
		s.api("POST", "/api/human-review-tasks/"+task.str("id")+"/complete", map[string]any{"review_result": true, "reviewed_output": map[string]any{"value": 5}}, 200)
	}
	testkit.WaitForExecution(s.t, &testkit.Caller{API: api}, uuid.MustParse(rx.str("id")), platformapi.ExecutionStatusCompleted)

	stopped := s.api("POST", "/api/flow-executions", map[string]any{"flow_id": reviewed.str("id"), "input": map[string]any{"value": 2}}, 201)
	testkit.WaitForExecution(s.t, &testkit.Caller{API: api}, uuid.MustParse(stopped.str("id")), platformapi.ExecutionStatusAwaitingInput)
	s.api("POST", "/api/flow-executions/"+stopped.str("id")+"/stop", nil, 200)
	s.api("DELETE", "/api/flow-executions/"+stopped.str("id"), nil, 204)
}

// jsonRaw passes a JSON text as it is inside a body the scenario marshals.
type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }
