package bench_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// slowModel speaks the OpenAI streaming protocol slowly: a piece of text every 500 ms for hold, so
// that streams stay open.
func slowModel(hold time.Duration) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for end := time.Now().Add(hold); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
			fmt.Fprint(w, `data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"thinking "},"finish_reason":null}]}`+"\n\n")
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if r.Context().Err() != nil {
				return
			}
		}
		fmt.Fprint(w, `data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
}

// BenchmarkAgentStreams measures, through a server process: the time from a chat request to the first
// event of the built-in agent's stream (goal ≤ 100 ms), and 200 chat streams held open at once on a
// configured model that answers slowly (the server's memory per open stream, and back after they end).
func BenchmarkAgentStreams(b *testing.B) {
	model := slowModel(8 * time.Second)
	defer model.Close()
	db := testkit.DB(b)
	dsn := testkit.DSN(b, db)
	token := testkit.SeedCaller(b, db)
	bin := testkit.BuildServer(b)
	start := func(env ...string) *testkit.Process {
		return testkit.Serve(b, bin, dsn, testkit.FreePort(b), append(env, "LOOPWORK_AGENT_PER_MINUTE=100000")...)
	}
	conversation := func(p *testkit.Process) string {
		var c struct {
			ID string `json:"conversation_id"`
		}
		testkit.Call(b, p.URL, token, "POST", "/api/agent/conversations", map[string]any{}, &c)
		return c.ID
	}
	open := func(p *testkit.Process, conv string) (*http.Response, error) {
		body, _ := json.Marshal(map[string]any{"message": map[string]any{"message_type": "user_message",
			"message": "extract the total, then post it to https://example.com/in"}})
		req, _ := http.NewRequest("POST", p.URL+"/api/agent/conversations/"+conv+"/chat/stream", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}

	builtin := start()
	var firsts []time.Duration
	for i := 0; i < 100; i++ {
		conv := conversation(builtin)
		began := time.Now()
		res, err := open(builtin, conv)
		if err != nil {
			b.Fatal(err)
		}
		line, _ := bufio.NewReader(res.Body).ReadString('\n')
		if !strings.HasPrefix(line, "event: ") {
			b.Fatalf("first line %q", line)
		}
		firsts = append(firsts, time.Since(began))
		res.Body.Close()
	}
	sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
	report(b, "first event of a chat stream (built-in agent, 100 requests)", "p50 %.2f ms  p90 %.2f ms  max %.2f ms",
		bench.Ms(firsts[50]), bench.Ms(firsts[90]), bench.Ms(firsts[99]))
	builtin.Kill()

	slow := start(`LOOPWORK_MODELS=[{"model": "m", "provider": "openai", "base_url": "`+model.URL+`"}]`, "LOOPWORK_AGENT_MODEL=m")
	const n = 200
	convs := make([]string, n)
	for i := range convs {
		convs[i] = conversation(slow)
	}
	before := slow.RSS()
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened, failed := 0, 0
	for _, conv := range convs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := open(slow, conv)
			if err != nil || res.StatusCode != http.StatusOK {
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			defer res.Body.Close()
			mu.Lock()
			opened++
			mu.Unlock()
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
			}
		}()
	}
	time.Sleep(4 * time.Second) // all open, each mid-reply
	held := slow.RSS()
	mu.Lock()
	report(b, "chat streams held open at once (slow model)", "%d open, %d failed; server RSS %.1f → %.1f MB: %.0f KB a stream",
		opened, failed, float64(before)/(1<<20), float64(held)/(1<<20), float64(held-before)/1024/float64(max(opened, 1)))
	mu.Unlock()
	wg.Wait()
	time.Sleep(time.Second)
	report(b, "  after they ended", "server RSS %.1f MB", float64(slow.RSS())/(1<<20))
	if failed > 0 {
		b.Errorf("%d streams failed", failed)
	}
}
