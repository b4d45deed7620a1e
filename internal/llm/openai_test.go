package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/llm"
)

// fakeOpenAI speaks the OpenAI chat completions streaming protocol; the model name picks the answer.
func fakeOpenAI(t *testing.T, seen chan<- map[string]any) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error": {"message": "bad path or key"}}`, http.StatusUnauthorized)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		if seen != nil {
			seen <- body
		}
		chunk := func(delta string, finish string) string {
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, f)
		}
		var events []string
		switch body["model"] {
		case "error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error": {"message": "the model is overloaded", "type": "server_error"}}`))
			return
		case "text":
			events = []string{chunk(`{"role":"assistant","content":"Hel"}`, ""), chunk(`{"content":"lo"}`, ""), chunk(`{}`, "stop"),
				`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}`}
		case "tools":
			events = []string{
				chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"propose_workflow","arguments":"{\"defin"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ition\": {}}"}}]}`, ""),
				chunk(`{}`, "tool_calls")}
		case "cut":
			events = []string{chunk(`{"role":"assistant","content":"Half an ans"}`, "")}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
		if body["model"] != "cut" {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}))
}

// TestOpenAIProtocol: text arrives in pieces and whole with its usage; a tool call split over chunks
// comes once complete; the request carries the messages, tools, schema and the usage option; an error
// answer and a stream cut before the end are upstream failures.
func TestOpenAIProtocol(t *testing.T) {
	seen := make(chan map[string]any, 10)
	srv := fakeOpenAI(t, seen)
	defer srv.Close()
	p := llm.NewOpenAI(srv.URL+"/v1", "sk-test", nil)
	ctx := context.Background()
	zero := 0.0
	var pieces []string
	res, err := p.Stream(ctx, llm.Request{Model: "text", Temperature: &zero, MaxTokens: 50,
		Schema:   map[string]any{"type": "object"},
		Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}},
		func(d llm.Delta) error { pieces = append(pieces, d.Text); return nil })
	if err != nil || res.Text != "Hello" || strings.Join(pieces, "|") != "Hel|lo" || res.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 2}) {
		t.Fatalf("text: %+v %v %q", res, err, pieces)
	}
	body := <-seen
	raw, _ := json.Marshal(body)
	for _, want := range []string{`"stream":true`, `"stream_options":{"include_usage":true}`, `"role":"system"`,
		`"response_format":{"json_schema":{"name":"output","schema":{"type":"object"}},"type":"json_schema"}`, `"max_completion_tokens":50`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the request lacks %s: %s", want, raw)
		}
	}

	var calls []llm.ToolCall
	res, err = p.Stream(ctx, llm.Request{Model: "tools", Messages: []llm.Message{{Role: "user", Content: "build"}},
		Tools: []llm.Tool{{Name: "propose_workflow", Description: "d", Parameters: map[string]any{"type": "object"}}}},
		func(d llm.Delta) error {
			if d.ToolCall != nil {
				calls = append(calls, *d.ToolCall)
			}
			return nil
		})
	if err != nil || len(calls) != 1 || calls[0].Arguments != `{"definition": {}}` || len(res.ToolCalls) != 1 || res.ToolCalls[0].ID != "call_1" {
		t.Fatalf("tools: %+v %v %+v", res, err, calls)
	}
	raw, _ = json.Marshal(<-seen)
	if !strings.Contains(string(raw), `"tools":[{"function":{"description":"d","name":"propose_workflow","parameters":{"type":"object"}},"type":"function"}]`) {
		t.Errorf("tools sent: %s", raw)
	}
	for _, model := range []string{"error", "cut"} {
		if _, err := p.Stream(ctx, llm.Request{Model: model, Messages: []llm.Message{{Role: "user", Content: "x"}}},
			func(llm.Delta) error { return nil }); !llm.IsUpstream(err) {
			t.Errorf("%s: %v", model, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Stream(cancelled, llm.Request{Model: "text"}, func(llm.Delta) error { return nil }); err == nil || llm.IsUpstream(err) {
		t.Errorf("a cancelled call: %v", err)
	}
}
