package conversations_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// scriptedModel speaks the OpenAI streaming protocol: without tools it writes a plan in two pieces;
// with tools it lists the task types, then proposes an invalid definition, then — told of the errors —
// a valid one.
func scriptedModel(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tools    []any `json:"tools"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(delta, finish string) {
			fmt.Fprintf(w, "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, finish)
			w.(http.Flusher).Flush()
		}
		call := func(name, args string) {
			a, _ := json.Marshal(args)
			send(`{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"`+name+`","arguments":`+string(a)+`}}]}`, "null")
			send(`{}`, `"tool_calls"`)
		}
		last := body.Messages[len(body.Messages)-1]
		text, _ := json.Marshal(last.Content)
		switch {
		case len(body.Tools) == 0:
			send(`{"role":"assistant","content":"1. Fetch the orders.\n"}`, "null")
			send(`{"content":"2. Post them on. Confirm?"}`, `"stop"`)
		case last.Role != "tool":
			call("list_task_types", `{}`)
		case strings.Contains(string(text), `valid`):
			call("propose_workflow", `{"summary": "Fetches and posts.", "definition": {"version": 1, "edges": [{"source": "fetch", "target": "post"}],
				"tasks": [{"name": "fetch", "type": "http_request", "parameters": {"url": "https://example.com/orders"}},
				{"name": "post", "type": "http_request", "parameters": {"url": "https://example.com/in", "method": "POST"}}]}}`)
		default:
			call("propose_workflow", `{"summary": "x", "definition": {"version": 1, "edges": [], "tasks": [{"name": "fetch", "type": "nope"}]}}`)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// TestAgentWithAModel: with a configured model the planner's text streams through as it is written,
// and the builder's invalid proposal goes back to the model, never to the user, until it proposes a
// valid one.
func TestAgentWithAModel(t *testing.T) {
	t.Parallel()
	srv := scriptedModel(t)
	defer srv.Close()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + srv.URL + `"}]`
		c.AgentModel = "m"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv := started.JSON201.ConversationId
	events, _, _ := chat(t, env, c, conv, text("fetch the orders and post them on"))
	if names(events) != "message,status,status,status,message,action,done" {
		t.Fatalf("plan: %s", names(events))
	}
	if find(t, events, "message", "")["content"] != "fetch the orders and post them on" ||
		events[2].Data["body"].(map[string]any)["content"] != "1. Fetch the orders.\n" {
		t.Fatalf("plan events %+v", events)
	}
	events, _, _ = chat(t, env, c, conv, action("confirm_plan", nil))
	var updates int
	for _, e := range events {
		if e.Name == "workflow_update" {
			updates++
			raw, _ := json.Marshal(e.Data["body"])
			if strings.Contains(string(raw), `"nope"`) || !strings.Contains(string(raw), `"Fetches and posts."`) {
				t.Fatalf("offered %s", raw)
			}
		}
	}
	if updates != 1 || !strings.HasSuffix(names(events), "workflow_update,action,done") {
		t.Fatalf("build: %s", names(events))
	}
	// The planner's call and the builder's three are recorded as usage of the organization.
	var calls int
	env.DB.Get(&calls, `SELECT count(*) FROM usage_records WHERE organization_id = $1 AND created_by = 'agent'`, c.OrgID)
	if calls != 4 {
		t.Fatalf("%d model calls recorded, want 4", calls)
	}
}

// TestDirectAgentWithAModel: the builder's chunks show its tool calls and their answers in order, the
// invalid proposal among them, and end with the valid one; a model slower than the agent timeout
// answers 504.
func TestDirectAgentWithAModel(t *testing.T) {
	t.Parallel()
	srv := scriptedModel(t)
	defer srv.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + srv.URL + `"}]`
		c.AgentModel = "m"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	res, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "fetch the orders and post them on"})
	testkit.Expect(t, res, err, http.StatusOK)
	var kinds []string
	for _, ch := range res.JSON200.Chunks {
		kinds = append(kinds, string(ch.Type))
	}
	last := res.JSON200.Chunks[len(res.JSON200.Chunks)-1]
	if strings.Join(kinds, ",") != "tool_call,tool_return,tool_call,tool_return,tool_call,tool_return,assistant" ||
		last.Content != "Fetches and posts." || res.JSON200.Chunks[3].Content.(map[string]any)["valid"] != false {
		t.Fatalf("chunks %s", res.Body)
	}

	timeoutEnv := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + slow.URL + `"}]`
		c.AgentModel, c.AgentTimeout = "m", 300*time.Millisecond
	}))
	tc := timeoutEnv.User(t, timeoutEnv.Org(t), auth.RoleAppUser)
	late, err := tc.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "x"})
	testkit.Expect(t, late, err, http.StatusGatewayTimeout)
	if e := testkit.ErrorOf(t, late); *e.Code != "timeout" {
		t.Fatalf("504: %s", late.Body)
	}
}
