package conversations_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// echoModel is a builder model that shows what it was given: it records the request text of each
// call and at once proposes the definition it was sent with one task added after the last, named
// after the number of tasks (so that each proposal names the definition it came from).
type echoModel struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newEchoModel(t *testing.T) *echoModel {
	m := &echoModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) < 2 {
			http.Error(w, "not a request of the builder", http.StatusBadRequest)
			return
		}
		text := body.Messages[1].Content
		m.mu.Lock()
		m.seen = append(m.seen, text)
		m.mu.Unlock()
		var def struct {
			Tasks []map[string]any `json:"tasks"`
		}
		_, rest, _ := strings.Cut(text, "The current definition:\n")
		current, _, _ := strings.Cut(rest, "\n\nRequest:\n")
		_ = json.Unmarshal([]byte(current), &def)
		name := fmt.Sprintf("step%d", len(def.Tasks)+1)
		edges := []any{}
		if n := len(def.Tasks); n > 0 {
			edges = append(edges, map[string]any{"source": def.Tasks[n-1]["name"], "target": name})
		}
		tasks := append(def.Tasks, map[string]any{"name": name, "type": "http_request", "parameters": map[string]any{"url": "https://example.com/" + name}})
		args, _ := json.Marshal(map[string]any{"summary": "Added " + name + ".", "definition": map[string]any{"version": 1, "tasks": tasks, "edges": edges}})
		quoted, _ := json.Marshal(string(args))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"+
			"{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"propose_workflow\",\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n", quoted)
		fmt.Fprint(w, "data: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(m.Close)
	return m
}

// last is the text of the model's latest call, and how many calls there were.
func (m *echoModel) last() (string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.seen) == 0 {
		return "", 0
	}
	return m.seen[len(m.seen)-1], len(m.seen)
}

// taskNames lists the names of a definition's tasks, in order.
func taskNames(def any) string {
	var d struct {
		Tasks []struct {
			Name string `json:"name"`
		} `json:"tasks"`
	}
	raw, _ := json.Marshal(def)
	_ = json.Unmarshal(raw, &d)
	var out []string
	for _, t := range d.Tasks {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

// TestModelBuildsOnWhatTheUserSees: with a configured model, the definition each build starts from
// is the saved flow, then the pending proposal, then the definition a rejection carries (with the
// reason in the request), then, after a rejection without a reason, the rejected definition again
// for the next message; after accept_workflow, the new saved version.
func TestModelBuildsOnWhatTheUserSees(t *testing.T) {
	t.Parallel()
	model := newEchoModel(t)
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "m", "provider": "openai", "base_url": "` + model.URL + `"}]`
		c.AgentModel = "m"
	}))
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	fetch := map[string]any{"name": "fetch", "type": "http_request", "parameters": map[string]any{"url": "https://example.com/orders"}}
	flow, conv := flowWith(t, c, map[string]any{"version": 1, "tasks": []any{fetch}, "edges": []any{}})
	mine := map[string]any{"version": 1, "edges": []any{}, "tasks": []any{fetch,
		map[string]any{"name": "mine", "type": "http_request", "parameters": map[string]any{"url": "https://example.com/mine"}}}}

	steps := []struct {
		message  map[string]any
		base     string // the tasks of the definition the model is sent
		says     []string
		proposed string
		version  int
	}{
		{text("add a step"), "fetch", []string{"add a step"}, "fetch,step2", 1},
		{text("and another"), "fetch,step2", []string{"and another"}, "fetch,step2,step3", 1},
		{reject(mine, "use mine"), "fetch,mine", []string{"rejected", "use mine"}, "fetch,mine,step3", 1},
		{reject(mine, ""), "", nil, "", 1},
		{text("keep mine"), "fetch,mine", []string{"rejected", "keep mine"}, "fetch,mine,step3", 1},
		{nil, "", nil, "", 2}, // accept
		{text("one more"), "fetch,mine,step3", []string{"one more"}, "fetch,mine,step3,step4", 2},
	}
	var accept any
	calls := 0
	for i, s := range steps {
		message := any(s.message)
		if s.message == nil {
			message = accept
		}
		events, _, _ := chat(t, env, c, conv, message)
		seen, n := model.last()
		if s.base == "" {
			if n != calls {
				t.Fatalf("step %d called the model: %s", i, names(events))
			}
			if v, _ := latest(t, c, flow); v != s.version {
				t.Fatalf("step %d: the flow is at version %d, want %d", i, v, s.version)
			}
			continue
		}
		calls++
		_, rest, _ := strings.Cut(seen, "The current definition:\n")
		current, request, _ := strings.Cut(rest, "\n\nRequest:\n")
		var base any
		_ = json.Unmarshal([]byte(current), &base)
		if n != calls || taskNames(base) != s.base {
			t.Fatalf("step %d: the model (call %d) was sent the tasks %q, want %q", i, n, taskNames(base), s.base)
		}
		for _, w := range s.says {
			if !strings.Contains(request, w) {
				t.Fatalf("step %d: the request %q does not say %q", i, request, w)
			}
		}
		update := find(t, events, "workflow_update", "")
		if taskNames(update["definition"]) != s.proposed || update["flow_version"] != float64(s.version) {
			t.Fatalf("step %d: offered %q on version %v", i, taskNames(update["definition"]), update["flow_version"])
		}
		if v, _ := latest(t, c, flow); v != s.version {
			t.Fatalf("step %d: a proposal saved version %d", i, v)
		}
		accept = find(t, events, "action", "confirmation_request")["data"].(map[string]any)["accept"]
	}
}
