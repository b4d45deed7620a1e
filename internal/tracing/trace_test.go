package tracing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/tracing"
)

// TestOneTrace: a request that starts an execution is one trace with the request's server span (named
// by its operationId, a child of the caller's traceparent) at its root, the request's SQL statements,
// the span of each task attempt, and the River job an attempt queued (the mail's delivery): its insert
// under the attempt, its work under the insert, and the work's statements under the work.
func TestOneTrace(t *testing.T) {
	t.Parallel()
	env, tr, rcv := traced(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(t.Context(), env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	c := newCaller()
	id := startFlow(t, user, c, mailThenShape)
	testkit.WaitForExecution(t, user, id, platformapi.ExecutionStatusCompleted)

	spans := waitForTrace(t, tr, rcv, c.traceID, func(s []span) bool {
		return len(named(s, "startFlowExecution")) == 1 && len(named(s, "task email")) == 1 &&
			len(named(s, "task transform")) == 1 && len(named(s, "river.insert_many")) >= 1 &&
			len(named(s, "river.work/mail_send")) == 1
	})

	// A tree: one root, the server span, whose parent is the caller's span; every other parent is in the trace.
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanID] = true
	}
	server := named(spans, "startFlowExecution")[0]
	for _, s := range spans {
		if s.SpanID != server.SpanID && !ids[s.ParentID] {
			t.Errorf("span %s (%s) has parent %s outside the trace", s.Name, s.SpanID, s.ParentID)
		}
	}
	if server.ParentID != c.spanID || server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("server span: parent %s (want the caller's %s), kind %v", server.ParentID, c.spanID, server.Kind)
	}
	if a := server.Attrs; a["http.request.method"] != "POST" || a["http.route"] != "/api/flow-executions" ||
		a["http.response.status_code"] != "201" || a["loopwork.request_id"] == "" || server.Service != "loopwork-test" {
		t.Errorf("server span attributes %v, service %q", a, server.Service)
	}

	// The request's own statements, and every statement with its text.
	own := 0
	for _, s := range sql(spans) {
		if s.ParentID == server.SpanID {
			own++
		}
		if s.Attrs["db.query.text"] == "" || s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("statement span %s: %v, kind %v", s.Name, s.Attrs, s.Kind)
		}
	}
	if own == 0 {
		t.Errorf("no statement span under the request's span among %d", len(sql(spans)))
	}

	email, shape := named(spans, "task email")[0], named(spans, "task transform")[0]
	if !descends(spans, email, server) || !descends(spans, shape, email) {
		t.Errorf("task spans: email under the request %v, transform under email %v",
			descends(spans, email, server), descends(spans, shape, email))
	}
	if a := email.Attrs; a["loopwork.task.name"] != "notify" || a["loopwork.task.outcome"] != "completed" ||
		a["loopwork.execution.id"] != id.String() || a["loopwork.organization.id"] != org.String() {
		t.Errorf("email task span attributes %v", a)
	}
	work := named(spans, "river.work/mail_send")[0]
	var insert *span
	for _, s := range named(spans, "river.insert_many") {
		if s.SpanID == work.ParentID {
			insert = &s
		}
	}
	if insert == nil || !descends(spans, *insert, email) {
		t.Fatalf("the mail job's work span is not under an insert span under the email task")
	}
	workSQL := 0
	for _, s := range sql(spans) {
		if descends(spans, s, work) {
			workSQL++
		}
	}
	if workSQL == 0 {
		t.Errorf("no statement span under the mail job's work")
	}
	if work.Attrs["kind"] != "mail_send" || work.Kind != tracepb.Span_SPAN_KIND_CONSUMER {
		t.Errorf("work span attributes %v, kind %v", work.Attrs, work.Kind)
	}
}

// TestRequestSpans: a sign-in's statements are traced with their text and never their parameters (the
// e-mail address is one, in the lookup of the user and in the rate limiter's keys), and nothing of the
// request's body or its answer leaves the process; a request that matches no route is named by its
// method alone.
func TestRequestSpans(t *testing.T) {
	t.Parallel()
	env, tr, rcv := traced(t)
	org := env.Org(t)
	_, email := env.NewUser(t, org, auth.RoleAppUser)

	t.Run("sign-in", func(t *testing.T) {
		c := newCaller()
		api, _ := env.Clients(t, "")
		password := testkit.Password
		res, err := api.IssueTokenWithResponse(t.Context(), &platformapi.IssueTokenParams{GrantType: platformapi.Password},
			platformapi.TokenRequest{Email: (*openapi_types.Email)(&email), Password: &password}, testkit.AnonEditor, c.header)
		testkit.Expect(t, res, err, http.StatusOK)
		spans := waitForTrace(t, tr, rcv, c.traceID, func(s []span) bool { return len(named(s, "issueToken")) == 1 })
		if len(sql(spans)) == 0 {
			t.Fatalf("no statement spans in the sign-in's trace: %v", spans)
		}
		for _, secret := range []string{password, email, res.JSON200.AccessToken, res.JSON200.RefreshToken} {
			if rcv.contains(secret) {
				t.Errorf("%q was exported", secret)
			}
		}
	})

	t.Run("no route", func(t *testing.T) {
		c := newCaller()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, env.URL+"/api/no-such-thing/"+uuid.NewString(), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.header(t.Context(), req)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		spans := waitForTrace(t, tr, rcv, c.traceID, func(s []span) bool { return len(s) > 0 })
		if len(spans) != 1 || spans[0].Name != "GET" || spans[0].Attrs["http.response.status_code"] != "404" {
			t.Fatalf("spans of an unrouted request: %+v", spans)
		}
	})
}

// TestOff: without an endpoint in loopwork's settings nothing is recorded or sent, even where the
// exporter library would find one of its own in the process's environment.
func TestOff(t *testing.T) {
	rcv := startReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rcv.URL+"/v1/traces")
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tracing.New(t.Context(), tracing.Options{Endpoint: cfg.OTLPTracesURL(), ServiceName: cfg.ServiceName,
		SampleRatio: cfg.TraceSampleRatio})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled() {
		t.Fatal("tracing is on by default")
	}
	env := testkit.NewEnv(t, testkit.WithTracing(tr))
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(t.Context(), env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	c := newCaller()
	id := startFlow(t, user, c, mailThenShape)
	testkit.WaitForExecution(t, user, id, platformapi.ExecutionStatusCompleted)
	if err := tr.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, s := tr.Provider().Tracer("test").Start(t.Context(), "probe")
	if s.IsRecording() || rcv.requests() != 0 {
		t.Fatalf("tracing off: recording %v, %d export requests", s.IsRecording(), rcv.requests())
	}
}
