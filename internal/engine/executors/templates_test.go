package executors_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/executors"
)

// TestHTTPRequestFieldsAreTemplates: the url, header and query values and the body are rendered on the
// input and the variables; a body string that is one expression keeps the expression's type.
func TestHTTPRequestFieldsAreTemplates(t *testing.T) {
	t.Parallel()
	type seen struct{ path, query, header, body string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Vendor"), string(b)}
	}))
	defer srv.Close()
	params := map[string]any{
		"url": srv.URL + "/invoices/{{ .id }}", "method": "POST",
		"headers": map[string]any{"X-Vendor": "{{ $tasks.extract.vendor }}"},
		"query":   map[string]any{"run": "{{ $input.run }}"},
		"body": map[string]any{"total": "{{ $tasks.extract.total }}", "note": "for {{ $tasks.extract.vendor }}",
			"items": []any{"{{ .id }}", "plain"}},
	}
	vars, _ := json.Marshal(map[string]any{"input": map[string]any{"run": 7},
		"tasks": map[string]any{"extract": map[string]any{"vendor": "ACME", "total": 12.5}}})
	res, err := executors.HTTPRequest(allowLoopback(), nil, executors.JQ{}).Run(context.Background(), executors.Input{
		Task: dsl.Task{Name: "post", Type: "http_request", Parameters: params}, Key: "e/post/0",
		Data: map[string]any{"id": "inv-1"}, Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	s := <-got
	var body any
	_ = json.Unmarshal([]byte(s.body), &body)
	want := map[string]any{"total": 12.5, "note": "for ACME", "items": []any{"inv-1", "plain"}}
	if s.path != "/invoices/inv-1" || s.query != "run=7" || s.header != "ACME" || !reflect.DeepEqual(body, want) {
		t.Fatalf("sent %+v (body %v); output %v", s, body, res.Output)
	}
	if params["url"] != srv.URL+"/invoices/{{ .id }}" {
		t.Fatal("rendering changed the task's own parameters")
	}
}

// TestConditionAndDelayPassTheirInputOn: a condition's output is its input and its result is the
// attempt's detail; a delay's output is its input and what it waits is the detail.
func TestConditionAndDelayPassTheirInputOn(t *testing.T) {
	t.Parallel()
	in := executors.Input{Task: dsl.Task{Name: "c", Type: "condition", Parameters: map[string]any{"expression": ".n > $input.min"}},
		Raw: json.RawMessage(`{"n": 3}`), Data: map[string]any{"n": 3.0}, Vars: json.RawMessage(`{"input": {"min": 2}}`)}
	res, err := executors.Condition(executors.JQ{}).Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(res.Output); string(out) != `{"n":3}` || !reflect.DeepEqual(res.Detail, map[string]any{"result": true}) {
		t.Fatalf("condition: output %s, detail %v", out, res.Detail)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in = executors.Input{Task: dsl.Task{Name: "d", Type: "delay", Parameters: map[string]any{"seconds": 2.0}},
		Data: map[string]any{"n": 3.0}}
	res, err = executors.Delay(func() time.Time { return now }).Run(context.Background(), in)
	if err != nil || !res.WaitUntil.Equal(now.Add(2*time.Second)) || !reflect.DeepEqual(res.Output, in.Data) ||
		!reflect.DeepEqual(res.Detail, map[string]any{"waited_seconds": 2.0}) {
		t.Fatalf("delay: %+v, %v", res, err)
	}
}
