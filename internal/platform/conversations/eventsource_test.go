package conversations_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// eventsourceVersion is the npm eventsource package the stock-client test runs (browser semantics).
const eventsourceVersion = "3.0.7"

// stockClient installs the eventsource package once into the user's cache and answers the directory
// holding it and the client script; it skips the test without node and npm, unless LOOPWORK_REQUIRE_NODE
// says they must be there.
func stockClient(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("LOOPWORK_REQUIRE_NODE") != "" {
			t.Fatal("node is required (LOOPWORK_REQUIRE_NODE) but not installed")
		}
		t.Skip("node is not installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "loopwork-test", "eventsource-"+eventsourceVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "eventsource")); err != nil {
		os.MkdirAll(dir, 0o755)
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "eventsource@"+eventsourceVersion)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install eventsource: %v %s", err, out)
		}
	}
	script, _ := os.ReadFile("testdata/eventsource.mjs")
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStockEventSourceClient: the eventsource package (the browser's EventSource semantics) reads the
// chat stream event by event with the message ids as lastEventId; when the stream ends after done it
// reconnects with Last-Event-ID as a browser does, and the server's 204 stops it without the message
// being acted on twice.
func TestStockEventSourceClient(t *testing.T) {
	t.Parallel()
	dir := stockClient(t)
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv := started.JSON201.ConversationId
	body, _ := json.Marshal(map[string]any{"message": text("extract the total, then post it to https://example.com/in")})
	cmd := exec.Command("node", "client.mjs", env.URL+"/api/agent/conversations/"+conv.String()+"/chat/stream", c.Token, string(body))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			Event, ID string
			Closed    bool
		}
		json.Unmarshal(sc.Bytes(), &line)
		switch {
		case line.Closed:
			got = append(got, "closed")
		case line.Event == "done" && strings.HasPrefix(line.ID, "done:"):
			got = append(got, "done")
		case line.ID != "":
			got = append(got, line.Event)
		}
	}
	if strings.Join(got, ",") != "message,status,message,action,done,closed" {
		t.Fatalf("the stock client saw %v:\n%s", got, out)
	}
	list, err := c.API.ListConversationMessagesWithResponse(ctx, conv, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 3 {
		t.Fatalf("%d messages stored, want 3 (the reconnection acted on nothing)", list.JSON200.Total)
	}
}

// TestReplayAfterAMessage: a reconnection after a message id replays the stored messages that followed
// it, then done, and stores nothing new; an unknown id answers 404.
func TestReplayAfterAMessage(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv := started.JSON201.ConversationId
	events, _, _ := chat(t, env, c, conv, text("wait 1 hour then notify a@example.com"))
	first := events[0].ID
	replayed, _, _ := chatWith(t, env, c, conv, text("ignored"), first)
	if names(replayed) != "message,action,done" || replayed[0].ID != events[2].ID {
		t.Fatalf("replay %s", names(replayed))
	}
	if _, status, _ := chatWith(t, env, c, conv, text("ignored"), "8f0e3c4a-1b2d-4e5f-8a9b-0c1d2e3f4a5b"); status != http.StatusNotFound {
		t.Fatalf("an unknown id: %d", status)
	}
	if _, status, _ := chatWith(t, env, c, conv, text("ignored"), events[len(events)-1].ID); status != http.StatusNoContent {
		t.Fatalf("after done: %d", status)
	}
	list, _ := c.API.ListConversationMessagesWithResponse(ctx, conv, nil)
	if list.JSON200.Total != 3 {
		t.Fatalf("%d messages", list.JSON200.Total)
	}
}
