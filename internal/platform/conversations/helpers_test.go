package conversations_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

type event struct {
	Name, ID string
	Data     map[string]any
}

// chat posts one chat message and reads the whole stream, checking its grammar line by line: every
// event is an event line, an id line and one data line of JSON, then a blank line; comments start
// with a colon; done comes last and once; every other event's data conforms to the contract.
func chat(t *testing.T, env *testkit.Env, c *testkit.Caller, conv uuid.UUID, message any) ([]event, int, []byte) {
	t.Helper()
	return chatWith(t, env, c, conv, message, "")
}

// chatWith is chat with a Last-Event-ID, as a reconnecting client sends it.
func chatWith(t *testing.T, env *testkit.Env, c *testkit.Caller, conv uuid.UUID, message any, lastEventID string) ([]event, int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": message})
	req, _ := http.NewRequest("POST", env.URL+"/api/agent/conversations/"+conv.String()+"/chat/stream", bytes.NewReader(body))
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return nil, res.StatusCode, b
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("headers %v", res.Header)
	}
	var events []event
	var cur []string
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ":"):
			if len(cur) != 0 {
				t.Fatalf("a comment inside an event: %q", cur)
			}
		case line == "":
			if len(cur) != 3 || !strings.HasPrefix(cur[0], "event: ") || !strings.HasPrefix(cur[1], "id: ") || !strings.HasPrefix(cur[2], "data: ") {
				t.Fatalf("an event is not event, id, data: %q", cur)
			}
			e := event{Name: strings.TrimPrefix(cur[0], "event: "), ID: strings.TrimPrefix(cur[1], "id: ")}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(cur[2], "data: ")), &e.Data); err != nil {
				t.Fatalf("data is not one JSON document: %q", cur[2])
			}
			if len(events) > 0 && events[len(events)-1].Name == "done" {
				t.Fatal("an event after done")
			}
			events = append(events, e)
			cur = nil
		default:
			cur = append(cur, line)
		}
	}
	if len(cur) != 0 || len(events) == 0 || events[len(events)-1].Name != "done" {
		t.Fatalf("the stream does not end with done: %+v %q", events, cur)
	}
	for _, e := range events[:len(events)-1] {
		if e.Name == "error" {
			if err := conforms(t, "ErrorResponse", e.Data); err != nil {
				t.Fatalf("an error event outside the contract: %v", err)
			}
			continue
		}
		if err := conforms(t, "ChatMessageResponse", e.Data); err != nil {
			t.Fatalf("a %s event outside the contract: %v\n%v", e.Name, err, e.Data)
		}
		body, _ := e.Data["body"].(map[string]any)
		if body["type"] != e.Name || e.Data["id"] != e.ID {
			t.Fatalf("event %s carries body type %v, id %s vs %v", e.Name, body["type"], e.ID, e.Data["id"])
		}
	}
	return events, res.StatusCode, nil
}

func names(events []event) string {
	var n []string
	for _, e := range events {
		n = append(n, e.Name)
	}
	return strings.Join(n, ",")
}

// storedOf counts the events of a reply that are stored as messages: all but status, error and done.
// How many a proposal brings depends on what the agent assumed or found missing.
func storedOf(events []event) int {
	n := 0
	for _, e := range events {
		if e.Name != "status" && e.Name != "error" && e.Name != "done" {
			n++
		}
	}
	return n
}

// find returns the first event of a name (and action type, for actions).
func find(t *testing.T, events []event, name, actionType string) map[string]any {
	t.Helper()
	for _, e := range events {
		body, _ := e.Data["body"].(map[string]any)
		if e.Name == name && (actionType == "" || body["action_type"] == actionType) {
			return body
		}
	}
	t.Fatalf("no %s %s in %s", name, actionType, names(events))
	return nil
}

func text(s string) map[string]any {
	return map[string]any{"message_type": "user_message", "message": s}
}

func action(a string, def any) map[string]any {
	m := map[string]any{"message_type": "action", "action": a}
	if def != nil {
		m["flow_definition"] = def
	}
	return m
}

// streamingModel speaks the OpenAI streaming protocol slowly: a piece of text every pause, pieces
// times, without finishing (a reply on it runs until its client leaves); a request that mentions
// "quick" is answered at once.
func streamingModel(pieces int, pause time.Duration) *httptest.Server {
	const chunk = `data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":%s}]}` + "\n\n"
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if b, _ := io.ReadAll(r.Body); bytes.Contains(b, []byte("quick")) {
			fmt.Fprintf(w, chunk+"data: [DONE]\n\n", "ok", `"stop"`)
			return
		}
		for i := 0; i < pieces && r.Context().Err() == nil; i++ {
			fmt.Fprintf(w, chunk, "x ", "null")
			w.(http.Flusher).Flush()
			time.Sleep(pause)
		}
	}))
}
