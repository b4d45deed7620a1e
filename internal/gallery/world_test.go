package gallery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// hooksHost is the address examples post to; the test points it at its own HTTP server.
const hooksHost = "https://hooks.example.test"

// world is one example's server with everything around it: the organization, its people, the HTTP
// targets, the mail the server sends and, when asked for, a registered SQL database.
type world struct {
	t     *testing.T
	ex    *example
	env   *testkit.Env
	owner *testkit.Caller
	users map[string]*testkit.Caller
	hooks *hooks
	inbox *testkit.Inbox
	// sqlDatabase is the id of the registered SQL database, when the example has given.sql.
	sqlDatabase uuid.UUID
	flow        uuid.UUID
	// job is the /v1 job that started the execution, when one did.
	job job
}

// newWorld starts a server for the example and creates its flow through the API as the owner, with
// the placeholders of its definition filled in.
func newWorld(t *testing.T, ex *example) *world {
	t.Helper()
	w := &world{t: t, ex: ex, users: map[string]*testkit.Caller{}, hooks: newHooks(t, ex.Given.Hooks), inbox: testkit.StartInbox(t)}
	sender, err := mail.NewSMTPSender(mail.SMTPConfig{Host: "127.0.0.1", Port: w.inbox.Port, TLS: "none",
		From: "loopwork <no-reply@loopwork.test>"})
	if err != nil {
		t.Fatal(err)
	}
	w.env = testkit.NewEnv(t, testkit.WithMailSender(sender), testkit.WithConfig(func(c *config.Config) {
		// The hooks server and the SQL database are on loopback, which tenant calls may not reach
		// unless allowed.
		c.OutboundAllow = "127.0.0.0/8"
		c.SMTPFrom = "loopwork <no-reply@loopwork.test>"
		c.InboundSMTPAddr, c.InboundDomain = "127.0.0.1:0", "in.loopwork.test"
	}))
	org := w.env.Org(t)
	if err := credits.Grant(ctx, w.env.DB, org, 1000); err != nil {
		t.Fatal(err)
	}
	w.owner = w.env.User(t, org, auth.RoleAppUser)
	for _, name := range ex.Given.Users {
		w.users[name] = w.env.User(t, org, auth.RoleAppUser)
	}
	if ex.Given.SQL != "" {
		w.sqlDatabase = w.registerSQL(ex.Given.SQL)
	}
	if len(ex.Definition) > 0 {
		w.flow = w.createFlow(w.fill(string(ex.Definition)))
	}
	return w
}

// createFlow saves the definition as the owner's flow, visible to the organization, and fails the test
// when the validator finds a problem or warns: an example shows a flow as it should be written.
func (w *world) createFlow(definition string) uuid.UUID {
	t := w.t
	vis := platformapi.Organization
	res, err := w.owner.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: w.ex.Title,
		Definition: json.RawMessage(definition), Visibility: &vis})
	testkit.Expect(t, res, err, http.StatusCreated)
	if errs := res.JSON201.ValidationErrors; errs != nil && len(*errs) > 0 {
		t.Fatalf("%s: the flow is not valid: %s", w.ex.file, asJSON(*errs))
	}
	if warns := res.JSON201.ValidationWarnings; warns != nil && len(*warns) > 0 {
		t.Fatalf("%s: the validator warns: %s", w.ex.file, asJSON(*warns))
	}
	return res.JSON201.Id
}

var placeholder = regexp.MustCompile(`\$\{[^}]*\}`)

// fill replaces the placeholders of a definition: the hooks host by the test's HTTP server,
// ${user:NAME} by the id of that given user, ${sql_database} by the registered SQL database.
func (w *world) fill(def string) string {
	w.t.Helper()
	def = strings.ReplaceAll(def, hooksHost, w.hooks.URL)
	return placeholder.ReplaceAllStringFunc(def, func(p string) string {
		name := p[2 : len(p)-1]
		if user, ok := strings.CutPrefix(name, "user:"); ok {
			if c := w.users[user]; c != nil {
				return c.UserID.String()
			}
		}
		if name == "sql_database" && w.sqlDatabase != uuid.Nil {
			return w.sqlDatabase.String()
		}
		w.t.Fatalf("%s: the placeholder %s names nothing given", w.ex.file, p)
		return ""
	})
}

// registerSQL creates an empty database on the test's PostgreSQL server, runs the example's statements
// on it, and registers it as the organization's SQL database.
func (w *world) registerSQL(statements string) uuid.UUID {
	t := w.t
	db := testkit.EmptyDB(t)
	if _, err := db.Exec(statements); err != nil {
		t.Fatalf("given.sql: %v", err)
	}
	u, err := url.Parse(testkit.DSN(t, db))
	if err != nil {
		t.Fatal(err)
	}
	user := "postgres"
	if u.User != nil && u.User.Username() != "" {
		user = u.User.Username()
	}
	password, _ := u.User.Password()
	if password == "" {
		password = "unused" // the test server trusts local connections
	}
	res, err := w.owner.API.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: u.Hostname(),
		Port: u.Port(), Username: user, Password: &password, Database: strings.TrimPrefix(u.Path, "/")})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

// input is the example's sample input as an object.
func (w *world) input() map[string]any {
	var in map[string]any
	if err := json.Unmarshal(w.ex.Input, &in); err != nil {
		w.t.Fatalf("input: %v", err)
	}
	return in
}

// start starts an execution of the flow on the sample input, as POST /api/flow-executions does for a
// person, a script or a cron job.
func (w *world) start() uuid.UUID {
	res, err := w.owner.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: w.flow, Input: w.input()})
	testkit.Expect(w.t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

// eventually polls f until it holds, and fails the test after 20 s.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s still waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hooks is the HTTP server behind https://hooks.example.test: it records every request and answers as
// the example's given.hooks say.
type hooks struct {
	URL string

	mu       sync.Mutex
	answers  map[string][]answer
	received []received
}

type received struct {
	Key    string // "METHOD /path"
	Header http.Header
	Body   any
	Raw    string
}

func newHooks(t *testing.T, answers map[string][]answer) *hooks {
	h := &hooks{answers: map[string][]answer{}}
	for path, a := range answers {
		h.answers[path] = append([]answer(nil), a...)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body any
		if json.Unmarshal(raw, &body) != nil {
			body = nil
		}
		h.mu.Lock()
		h.received = append(h.received, received{Key: r.Method + " " + r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: string(raw)})
		a := answer{Status: http.StatusOK, Body: map[string]any{"ok": true}}
		if queue := h.answers[r.URL.Path]; len(queue) > 0 {
			a = queue[0]
			if len(queue) > 1 {
				h.answers[r.URL.Path] = queue[1:]
			}
		}
		h.mu.Unlock()
		if a.Status == 0 {
			a.Status = http.StatusOK
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(a.Status)
		if a.Body != nil {
			_ = json.NewEncoder(rw).Encode(a.Body)
		}
	}))
	t.Cleanup(srv.Close)
	h.URL = srv.URL
	return h
}

func (h *hooks) all() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.received...)
}

func (r received) String() string { return fmt.Sprintf("%s %s", r.Key, r.Raw) }
