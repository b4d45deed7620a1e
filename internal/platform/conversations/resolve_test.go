package conversations_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestErrorResolution: after an execution of the flow failed, initiate_error_resolve summarises its
// task errors with a suggestion each, and resolve_errors proposes the definition with the failed task
// retried — a proposal that validates and can be accepted.
func TestErrorResolution(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	def := `{"version": 1, "tasks": [{"name": "call", "type": "http_request", "parameters": {"url": "http://127.0.0.1:` +
		strconv.Itoa(port) + `/x"}}], "edges": []}`
	flow, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "calls", Definition: json.RawMessage(def)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	x, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow.JSON201.Id, Input: map[string]any{}})
	testkit.Expect(t, x, err, http.StatusCreated)
	testkit.WaitForExecution(t, c, x.JSON201.Id, "failed")

	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{FlowId: &flow.JSON201.Id})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv := started.JSON201.ConversationId
	got, _ := c.API.GetConversationWithResponse(ctx, conv)
	if got.JSON200.Phase != "build" {
		t.Fatalf("a flow with tasks starts in build: %s", got.Body)
	}
	events, _, _ := chat(t, env, c, conv, action("initiate_error_resolve", nil))
	summary := find(t, events, "action", "error_summary")["data"].(map[string]any)
	te := summary["task_errors"].([]any)
	first := te[0].(map[string]any)
	if len(te) != 1 || first["task_name"] != "call" || first["flow_execution_id"] != x.JSON201.Id.String() || first["suggested_fix"] == "" {
		t.Fatalf("summary %v", summary)
	}
	for _, e := range events {
		if e.Name != "done" && e.Name != "status" && e.Data["sender"] != "Error Resolver" {
			t.Fatalf("sender %v", e.Data["sender"])
		}
	}
	events, _, _ = chat(t, env, c, conv, action("resolve_errors", nil))
	update := find(t, events, "workflow_update", "")
	raw, _ := json.Marshal(update["definition"])
	if !strings.Contains(string(raw), `"retry":{"backoff_seconds":5,"max_attempts":3}`) {
		t.Fatalf("proposal %s", raw)
	}
	accept := find(t, events, "action", "confirmation_request")["data"].(map[string]any)["accept"]
	if events, _, _ = chat(t, env, c, conv, accept); !strings.Contains(names(events), "run_workflow_request") && !strings.Contains(names(events), "action") {
		t.Fatalf("accept: %s", names(events))
	}
}

// TestDirectAgent: the three agents answer in chunks, the builder's proposal validates; the rate
// limit answers 429.
func TestDirectAgent(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.AgentPerMinute = 3 }))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	res, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "Extract the total, then post it to https://example.com/in"})
	testkit.Expect(t, res, err, http.StatusOK)
	var kinds []string
	for _, ch := range res.JSON200.Chunks {
		kinds = append(kinds, string(ch.Type))
	}
	if strings.Join(kinds, ",") != "reasoning,tool_call,tool_return,tool_call,tool_return,assistant" ||
		res.JSON200.Chunks[4].Content.(map[string]any)["valid"] != true {
		t.Fatalf("builder: %s", res.Body)
	}
	summarizer := platformapi.WORKFLOWSUMMARIZER
	state := platformapi.WorkflowState{Tasks: []platformapi.WorkflowStateTask{
		{Id: "fetch", Type: "http_request", Parameters: map[string]any{"url": "https://example.com/a"}},
		{Id: "mail", Type: "email", Parameters: map[string]any{"to": []any{"a@example.com"}}, Dependencies: &[]string{"fetch"}}}}
	sum, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "describe", AgentType: &summarizer, WorkflowState: &state})
	testkit.Expect(t, sum, err, http.StatusOK)
	if s, _ := sum.JSON200.Chunks[0].Content.(string); !strings.Contains(s, "**mail** (email)") || !strings.Contains(s, "Runs after fetch") {
		t.Fatalf("summary: %s", sum.Body)
	}
	planner := platformapi.WORKFLOWPLANNER
	plan, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "wait 1 hour then notify a@example.com", AgentType: &planner})
	testkit.Expect(t, plan, err, http.StatusOK)
	// The limit is 3 a minute in fixed windows: of 4 more calls within a second, at least one is
	// refused whichever window boundary falls among them.
	refused := 0
	for i := 0; i < 4; i++ {
		res, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "again"})
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("7 calls within a second and a limit of 3 a minute: none refused")
	}
}
