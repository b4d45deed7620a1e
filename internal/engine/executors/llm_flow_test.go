package executors_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLLMTasks: with the built-in model an llm task fills its output schema from the rendered prompt;
// with a configured OpenAI-compatible endpoint it sends the rendered prompt with the credential's key
// and parses the JSON answer; an answer that does not follow the schema fails the attempt; every call
// is recorded as one llm-call with its tokens.
func TestLLMTasks(t *testing.T) {
	t.Parallel()
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths = append(auths, r.Header.Get("Authorization"))
		var body struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		answer := `{\"total\": 42, \"confidence\": 0.95}`
		if body.Messages[len(body.Messages)-1].Content == "bad" {
			answer = `not json`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":5,\"total_tokens\":12}}\n\ndata: [DONE]\n\n", answer)
	}))
	defer srv.Close()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m1", "provider": "openai", "base_url": "` + srv.URL + `", "api_key": "sk-server"}]`
	}))
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 50); err != nil {
		t.Fatal(err)
	}
	schema := `"output_schema": {"type": "object", "required": ["total", "confidence"], "properties": {"total": {"type": "number"},
		"vendor": {"type": "string"}, "confidence": {"type": "number"}}}`
	builtin := runAs(t, env, c, `{"name": "q", "type": "llm", "parameters": {"model": "loopwork-builtin",
		"prompt": "Extract from:\nVendor: ACME\nTotal: {{ .min * 617.25 }} EUR", `+schema+`}}`)
	atts := attemptsOf(t, env, builtin, "q")
	var out struct {
		JSON  map[string]any `json:"json"`
		Model string         `json:"model"`
	}
	json.Unmarshal(atts[len(atts)-1].Output, &out)
	if atts[len(atts)-1].Status != "completed" || out.Model != "loopwork-builtin" || out.JSON["total"] != 1234.5 ||
		out.JSON["vendor"] != "ACME" || out.JSON["confidence"] != 1.0 {
		t.Fatalf("built-in: %+v %s", atts, atts[len(atts)-1].Output)
	}

	key := map[string]any{"api_key": "sk-tenant"}
	cred, err := c.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: uuid.NewString(),
		Provider: "vendor_b", CredentialType: "api_key", Data: &key})
	testkit.Expect(t, cred, err, http.StatusCreated)
	remote := runAs(t, env, c, fmt.Sprintf(`{"name": "q", "type": "llm", "parameters": {"model": "m1", "prompt": "total?",
		"credential_id": %q, %s}}`, cred.JSON201.Id, schema))
	atts = attemptsOf(t, env, remote, "q")
	json.Unmarshal(atts[len(atts)-1].Output, &out)
	if atts[len(atts)-1].Status != "completed" || out.JSON["total"] != 42.0 || len(auths) != 1 || auths[0] != "Bearer sk-tenant" {
		t.Fatalf("remote: %+v %s %v", atts, atts[len(atts)-1].Output, auths)
	}
	bad := runAs(t, env, c, `{"name": "q", "type": "llm", "parameters": {"model": "m1", "prompt": "bad", `+schema+`}}`)
	if atts := attemptsOf(t, env, bad, "q"); len(atts) != 1 || atts[0].Status != "failed" || auths[1] != "Bearer sk-server" {
		t.Fatalf("a non-JSON answer: %+v %v", atts, auths)
	}
	var calls int
	env.DB.Get(&calls, `SELECT count(*) FROM usage_records WHERE organization_id = $1 AND product_id = '00000000-0000-4000-8000-000000000002'
		AND metadata ? 'input_tokens'`, org)
	if calls != 2 {
		t.Fatalf("%d llm calls recorded, want 2 (the failed attempt is not)", calls)
	}
}
