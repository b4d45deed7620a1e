package tracing_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/tracing"
)

// traced starts a server whose tracing exports to a receiver of the test's own.
func traced(t *testing.T) (*testkit.Env, *tracing.Tracing, *receiver) {
	t.Helper()
	rcv := startReceiver(t)
	tr, err := tracing.New(t.Context(), tracing.Options{Endpoint: rcv.URL + "/v1/traces", ServiceName: "loopwork-test",
		ServiceVersion: "test", SampleRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return testkit.NewEnv(t, testkit.WithTracing(tr)), tr, rcv
}

// caller is a span of the test's own that a request names as its parent in a traceparent header.
type caller struct{ traceID, spanID string }

func newCaller() caller {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return caller{traceID: hex.EncodeToString(b[:16]), spanID: hex.EncodeToString(b[16:])}
}

// header sets the caller's traceparent (sampled) on a request.
func (c caller) header(_ context.Context, req *http.Request) error {
	req.Header.Set("traceparent", "00-"+c.traceID+"-"+c.spanID+"-01")
	return nil
}

// waitForTrace flushes the exporter until the receiver holds a trace that complete accepts, for at most
// 30 s: some spans (a River job's work) end after the execution they belong to has finished.
func waitForTrace(t *testing.T, tr *tracing.Tracing, rcv *receiver, id string, complete func([]span) bool) []span {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := tr.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		spans := rcv.trace(id)
		if complete(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			for _, s := range spans {
				t.Logf("%s %s parent %s %v", s.SpanID, s.Name, s.ParentID, s.Attrs)
			}
			t.Fatalf("trace %s incomplete after 30 s: %d spans", id, len(spans))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startFlow creates a flow of definition and starts an execution of it with a traceparent of c.
func startFlow(t *testing.T, user *testkit.Caller, c caller, definition string) uuid.UUID {
	t.Helper()
	vis := platformapi.Organization
	created, err := user.API.CreateFlowWithResponse(t.Context(), platformapi.FlowCreateRequest{DisplayName: "traced",
		Definition: json.RawMessage(definition), Visibility: &vis})
	testkit.Expect(t, created, err, http.StatusCreated)
	if len(*created.JSON201.ValidationErrors) != 0 {
		t.Fatalf("the test flow is not valid: %+v", *created.JSON201.ValidationErrors)
	}
	started, err := user.API.StartFlowExecutionWithResponse(t.Context(), platformapi.FlowExecutionCreateRequest{
		FlowId: created.JSON201.Id, Input: map[string]any{"n": 7}}, c.header)
	testkit.Expect(t, started, err, http.StatusCreated)
	return started.JSON201.Id
}

// mailThenShape is a flow of an email task, whose mail the outbox delivers in a River job, and a
// transform task after it.
const mailThenShape = `{"version": 1, "tasks": [
	{"name": "notify", "type": "email", "parameters": {"to": ["ops@example.com"], "subject": "Run {{ .n }}", "body": "n is {{ .n }}"}},
	{"name": "shape", "type": "transform", "parameters": {"expression": "{sent: .message_id}"}}],
	"edges": [{"source": "notify", "target": "shape"}]}`

// named returns the spans of the trace with the name.
func named(spans []span, name string) []span {
	var out []span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// sql returns the statement spans of the trace.
func sql(spans []span) []span {
	var out []span
	for _, s := range spans {
		if s.Attrs["db.system.name"] == "postgresql" {
			out = append(out, s)
		}
	}
	return out
}

// descends reports whether s is below ancestor in the trace's tree.
func descends(spans []span, s, ancestor span) bool {
	byID := map[string]span{}
	for _, x := range spans {
		byID[x.SpanID] = x
	}
	for seen := 0; seen <= len(spans); seen++ {
		p, ok := byID[s.ParentID]
		if !ok {
			return false
		}
		if p.SpanID == ancestor.SpanID {
			return true
		}
		s = p
	}
	return false
}
