package conversations_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestNothingLeaks: clients that leave mid-stream (while a slow model is still answering), clients
// that never read, and a 10 MB body leave no goroutine behind, and the conversations are free for
// the next message at once.
func TestNothingLeaks(t *testing.T) {
	model := streamingModel(3, 10*time.Second) // quiet for 30 s: only cancellation ends a reply before the deadline below
	defer model.Close()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + model.URL + `"}]`
		c.AgentModel, c.AgentPerMinute = "m", 10000
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	convs := make([]string, 20)
	for i := range convs {
		started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
		testkit.Expect(t, started, err, http.StatusCreated)
		convs[i] = started.JSON201.ConversationId.String()
	}
	post := func(conv string, body io.Reader) (*http.Response, error) {
		req, _ := http.NewRequest("POST", env.URL+"/api/agent/conversations/"+conv+"/chat/stream", body)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		req.Header.Set("Content-Type", "application/json")
		return (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	}
	message, _ := json.Marshal(map[string]any{"message": text("plan something")})
	baseline := ours()

	for i, conv := range convs {
		res, err := post(conv, bytes.NewReader(message))
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %v %v", i, err, res)
		}
		if i%2 == 0 { // reads the first event, then leaves
			bufio.NewReader(res.Body).ReadString('\n')
		} // the others never read
		res.Body.Close()
	}
	huge := strings.NewReader(`{"message": {"message_type": "user_message", "message": "` + strings.Repeat("x", 10<<20) + `"}}`)
	if res, err := post(convs[0], huge); err == nil {
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("10 MB: %d", res.StatusCode)
		}
		res.Body.Close()
	}
	deadline := time.Now().Add(15 * time.Second)
	for ours() > baseline {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<22)
			t.Fatalf("%d goroutines of replies or model calls, %d before:\n%s", ours(), baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every conversation takes the next message: no reply is left holding it.
	var busy int
	env.DB.Get(&busy, `SELECT count(*) FROM conversations WHERE streaming_until IS NOT NULL`)
	if busy != 0 {
		t.Fatalf("%d conversations still held by a reply", busy)
	}
}

// ours counts the goroutines that run replies or model calls (a reply's handler runs in its
// connection's goroutine). The background workers' goroutines come and go on their schedule, and idle
// keep-alive connections wait for their next request; neither is counted.
func ours() int {
	buf := make([]byte, 1<<22)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "internal/platform/conversations.") || strings.Contains(g, "internal/llm.") ||
			strings.Contains(g, "github.com/openai/openai-go") {
			n++
		}
	}
	return n
}
