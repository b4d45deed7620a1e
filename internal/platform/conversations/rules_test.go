package conversations_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestOneReplyAtATime: while a reply streams, another message and a phase change answer 409, and
// deleting the conversation cancels the reply; a flow of another organization cannot be worked on;
// replies past the rate answer 429.
func TestOneReplyAtATime(t *testing.T) {
	t.Parallel()
	model := streamingModel(200, 50*time.Millisecond)
	defer model.Close()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + model.URL + `"}]`
		c.AgentModel, c.AgentPerMinute = "m", 4
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	other := env.User(t, env.Org(t), auth.RoleAppUser)
	theirFlow, err := other.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "theirs",
		Definition: json.RawMessage(`{"version": 1, "tasks": [], "edges": []}`)})
	testkit.Expect(t, theirFlow, err, http.StatusCreated)
	hidden, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{FlowId: &theirFlow.JSON201.Id})
	testkit.Expect(t, hidden, err, http.StatusNotFound)

	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv := started.JSON201.ConversationId
	body, _ := json.Marshal(map[string]any{"message": text("plan it")})
	req, _ := http.NewRequest("POST", env.URL+"/api/agent/conversations/"+conv.String()+"/chat/stream", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", err, res)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	r.ReadString('\n') // the reply is under way

	if _, status, body := chat(t, env, c, conv, text("again")); status != http.StatusConflict || !strings.Contains(string(body), "streaming") {
		t.Fatalf("a second message: %d %s", status, body)
	}
	phase, err := c.API.UpdateConversationPhaseWithResponse(ctx, conv, platformapi.ConversationUpdateRequest{Phase: "build"})
	testkit.Expect(t, phase, err, http.StatusConflict)
	del, err := c.API.DeleteConversationWithResponse(ctx, conv)
	testkit.Expect(t, del, err, http.StatusNoContent)
	ended := make(chan struct{})
	go func() {
		for {
			if _, err := r.ReadString('\n'); err != nil {
				close(ended)
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("deleting the conversation did not end its reply")
	}
	// The limit is 4 replies a minute (one spent above), in fixed windows: of 8 more within a second
	// at least one is refused whichever window boundary falls among them.
	refused := 0
	for i := 0; i < 8; i++ {
		s, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
		testkit.Expect(t, s, err, http.StatusCreated)
		direct, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: "quick", AgentType: new(platformapi.WORKFLOWSUMMARIZER)})
		if err != nil {
			t.Fatal(err)
		}
		if direct.StatusCode() == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no reply refused past the rate")
	}
}
