package executors_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/netguard"
)

// loopback lets the guarded client reach httptest servers, as LOOPWORK_OUTBOUND_ALLOW=127.0.0.1/32 would.
var loopback = &net.IPNet{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(32, 32)}

func allowLoopback() *http.Client {
	return netguard.New([]*net.IPNet{loopback}).Client(netguard.Options{})
}

// call runs one http_request attempt with params.
func call(t *testing.T, client *http.Client, params map[string]any) (map[string]any, error) {
	t.Helper()
	// Parameters reach the executor decoded from JSON, numbers as float64.
	raw, _ := json.Marshal(params)
	var p map[string]any
	_ = json.Unmarshal(raw, &p)
	res, err := executors.HTTPRequest(client, nil, executors.JQ{}).Run(context.Background(), executors.Input{
		Task: dsl.Task{Name: "call", Type: "http_request", Parameters: p}, Key: "exec/call/0"})
	if err != nil {
		return nil, err
	}
	out, _ := res.Output.(map[string]any)
	return out, nil
}

// TestHTTPRequestSendsWhatTheTaskSays: method, headers, merged query, a JSON body and the attempt's
// Idempotency-Key arrive; a JSON answer comes back parsed, with status and headers.
func TestHTTPRequestSendsWhatTheTaskSays(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, path, query, key, auth, ctype, body string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Idempotency-Key"), r.Header.Get("Authorization"),
			r.Header.Get("Content-Type"), string(b)}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Add("X-Seen", "a")
		w.Header().Add("X-Seen", "b")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": 7, "tags": ["x"]}`))
	}))
	defer srv.Close()

	out, err := call(t, allowLoopback(), map[string]any{"url": srv.URL + "/items?page=1", "method": "POST",
		"headers": map[string]any{"Authorization": "Bearer t0k"}, "query": map[string]any{"q": "a b"},
		"body": map[string]any{"name": "n", "count": 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s.method != "POST" || s.path != "/items" || s.query != "page=1&q=a+b" || s.key != "exec/call/0" ||
		s.auth != "Bearer t0k" || s.ctype != "application/json" || s.body != `{"count":2,"name":"n"}` {
		t.Fatalf("the server saw %+v", s)
	}
	headers, _ := out["headers"].(map[string]string)
	body, _ := out["body"].(map[string]any)
	if out["status"] != 201 || headers["X-Seen"] != "a, b" || body["id"] != 7.0 {
		t.Fatalf("output %#v", out)
	}
}

// TestHTTPRequestBodies: text comes back as text, a JSON content type with a body that does not parse
// as text too, and a string body is sent as it is.
func TestHTTPRequestBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/broken" {
			w.Header().Set("Content-Type", "application/problem+json")
			_, _ = w.Write([]byte(`{"half":`))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("echo: " + string(b)))
	}))
	defer srv.Close()
	out, err := call(t, allowLoopback(), map[string]any{"url": srv.URL, "method": "PUT", "body": "raw {text}"})
	if err != nil || out["body"] != "echo: raw {text}" {
		t.Fatalf("text: %#v, %v", out, err)
	}
	out, err = call(t, allowLoopback(), map[string]any{"url": srv.URL + "/broken"})
	if err != nil || out["body"] != `{"half":` {
		t.Fatalf("broken JSON: %#v, %v", out, err)
	}
}

// TestHTTPRequestStatuses: 5xx, 429 and 408 may pass on a retry; other 4xx fail for good and say what
// the server answered; 3xx that is not a redirect completes.
func TestHTTPRequestStatuses(t *testing.T) {
	t.Parallel()
	status := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(<-status)
		_, _ = w.Write([]byte("no such invoice"))
	}))
	defer srv.Close()
	for _, c := range []struct {
		status    int
		fails     bool
		permanent bool
	}{{503, true, false}, {500, true, false}, {429, true, false}, {408, true, false},
		{404, true, true}, {400, true, true}, {304, false, false}, {204, false, false}} {
		status <- c.status
		out, err := call(t, allowLoopback(), map[string]any{"url": srv.URL})
		switch {
		case (err != nil) != c.fails:
			t.Errorf("%d: output %v, error %v", c.status, out, err)
		case err != nil && executors.IsPermanent(err) != c.permanent:
			t.Errorf("%d: permanent %v, want %v (%v)", c.status, executors.IsPermanent(err), c.permanent, err)
		case c.status == 404 && !strings.Contains(err.Error(), "404 Not Found: no such invoice"):
			t.Errorf("404: %v", err)
		case err == nil && out["status"] != c.status:
			t.Errorf("%d: output %v", c.status, out)
		}
	}
}

// TestHTTPRequestLimits: a body over the cap fails for good, a slow server fails the attempt after
// timeout_seconds, and credential_id fails until credentials exist.
func TestHTTPRequestLimits(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			chunk := []byte(strings.Repeat("x", 1<<20))
			for range executors.MaxResponseBytes>>20 + 1 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)

	_, err := call(t, allowLoopback(), map[string]any{"url": srv.URL + "/big"})
	if err == nil || !executors.IsPermanent(err) || !strings.Contains(err.Error(), "larger than 10 MiB") {
		t.Fatalf("oversized: %v", err)
	}
	began := time.Now()
	_, err = call(t, allowLoopback(), map[string]any{"url": srv.URL + "/slow", "timeout_seconds": 0.3})
	if err == nil || executors.IsPermanent(err) || !strings.Contains(err.Error(), "within 300ms") {
		t.Fatalf("slow: %v", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the timeout took %s", took)
	}
	_, err = call(t, allowLoopback(), map[string]any{"url": srv.URL, "credential_id": "0b6f2c56-3f43-4d39-9b8e-8d6c5e0f4a11"})
	if err == nil || !executors.IsPermanent(err) || !strings.Contains(err.Error(), "applies no credentials") {
		t.Fatalf("credential: %v", err)
	}
}

// TestHTTPRequestRefusesPrivateTargets: without the allow-list, the guard refuses loopback, and the
// attempt fails for good without the server seeing a request.
func TestHTTPRequestRefusesPrivateTargets(t *testing.T) {
	t.Parallel()
	var hit atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit.Store(true) }))
	defer srv.Close()
	_, err := call(t, netguard.New(nil).Client(netguard.Options{}), map[string]any{"url": srv.URL})
	if !errors.Is(err, netguard.ErrBlocked) || !executors.IsPermanent(err) || hit.Load() {
		t.Fatalf("error %v, server hit %v", err, hit.Load())
	}
}

// TestHTTPRequestSendsItsInput: a POST without a body sends the task's input as JSON.
func TestHTTPRequestSendsItsInput(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("Content-Type") + " " + string(b)
	}))
	defer srv.Close()
	_, err := executors.HTTPRequest(allowLoopback(), nil, executors.JQ{}).Run(context.Background(), executors.Input{
		Task: dsl.Task{Name: "post", Type: "http_request", Parameters: map[string]any{"url": srv.URL, "method": "POST"}},
		Key:  "exec/post/0", Data: map[string]any{"extract": map[string]any{"total": 12.5}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != `application/json {"extract":{"total":12.5}}` {
		t.Fatalf("sent %s", s)
	}
}
