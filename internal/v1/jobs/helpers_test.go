package jobs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// fx is one server with an organization that has credits, an org_admin and a plain app.
type fx struct {
	env   *testkit.Env
	org   uuid.UUID
	admin *testkit.Caller
	app   uuid.UUID
}

func setup(t *testing.T) *fx {
	t.Helper()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	if err := credits.Grant(ctx, env.DB, org, 100_000); err != nil {
		t.Fatal(err)
	}
	f := &fx{env: env, org: org, admin: env.User(t, org, auth.RoleOrgAdmin)}
	f.app = f.newApp(t, appOpts{})
	return f
}

// appOpts describe an app; the zero value is an ACTIVE app without a flow and default settings. flow
// binds it to a flow whose task waits for an outside worker, def to a flow of that definition.
type appOpts struct {
	org      uuid.UUID
	settings string
	flow     bool
	def      string
	status   string
	ttl      *int
}

func (f *fx) newApp(t *testing.T, o appOpts) uuid.UUID {
	t.Helper()
	if o.org == uuid.Nil {
		o.org = f.org
	}
	if o.settings == "" {
		o.settings = "{}"
	}
	if o.status == "" {
		o.status = "ACTIVE"
	}
	var flow *uuid.UUID
	if o.flow || o.def != "" {
		if o.def == "" {
			o.def = waitingFlow
		}
		id := testkit.NewFlow(t, f.env.User(t, o.org, auth.RoleOrgAdmin), o.def)
		flow = &id
	}
	var id uuid.UUID
	err := f.env.DB.Get(&id, `INSERT INTO apps (organization_id, name, api_id, status, settings, job_ttl_seconds)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, o.org, "app "+uuid.NewString()[:8], flow, o.status, o.settings, o.ttl)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// waitingFlow is one external task that no worker claims: its executions stay queued.
const waitingFlow = `{"version": 1, "tasks": [{"name": "work", "type": "external", "parameters": {"queue": "jobs-test"}}], "edges": []}`

// member is a new app_user of the organization acting on app with role.
func (f *fx) member(t *testing.T, app uuid.UUID, role string) *testkit.Caller {
	t.Helper()
	return f.worker(t, app, f.env.User(t, f.org, auth.RoleAppUser), role)
}

// submit submits a job through the API as the org_admin.
func (f *fx) submit(t *testing.T, app uuid.UUID, in v1api.JobInput) int64 {
	t.Helper()
	res, err := f.admin.V1.SubmitJobWithResponse(ctx, app, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.JSON201 == nil {
		t.Fatalf("submit: %d %s", res.StatusCode(), res.Body)
	}
	return res.JSON201.Id
}

// row is what seed inserts directly, for states the API reaches only through many steps.
type row struct {
	status, state string
	input         string
	tags          []string
	batch         *string
	score         *float64
	priority      int // 5, the column's default, when 0
}

// seed inserts jobs in order and returns their ids.
func (f *fx) seed(t *testing.T, app uuid.UUID, rows ...row) []int64 {
	t.Helper()
	ids := make([]int64, len(rows))
	for i, r := range rows {
		if r.state == "" {
			r.state = "QUEUED"
		}
		if r.input == "" {
			r.input = `{}`
		}
		if r.tags == nil {
			r.tags = []string{}
		}
		if r.priority == 0 {
			r.priority = 5
		}
		var done any
		if r.status == "COMPLETED" {
			done = "now"
		}
		err := f.env.DB.Get(&ids[i], `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, tags, batch_id, score, completed_at, priority)
			SELECT organization_id, id, $2, $3, $4, $5, $6, $7, $8::timestamptz, $9 FROM apps WHERE id = $1 RETURNING id`,
			app, r.status, r.state, r.input, pq.StringArray(r.tags), r.batch, r.score, done, r.priority)
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// many inserts n jobs of one status in one statement.
func (f *fx) many(t *testing.T, app uuid.UUID, n int, status string) {
	t.Helper()
	if _, err := f.env.DB.Exec(`INSERT INTO jobs (organization_id, app_id, status, processing_state, input)
		SELECT a.organization_id, a.id, $2, 'QUEUED', jsonb_build_object('i', g) FROM apps a, generate_series(1, $3) g
		WHERE a.id = $1`, app, status, n); err != nil {
		t.Fatal(err)
	}
}

// raw sends a request with a caller's credential and answers the status and body, for requests
// the generated client cannot send (undeclared parameters).
func raw(t *testing.T, f *fx, c *testkit.Caller, method, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, f.env.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	res, err := f.env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// wantStatus fails unless the response has the status; it answers the body for further checks.
func wantStatus(t *testing.T, what string, got int, body []byte, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d: %s", what, got, want, body)
	}
}

// errorCode reads error.code of an ErrorResponse body.
func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e v1api.ErrorResponse
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an error body: %s", body)
	}
	if e.Error.Code == nil {
		return ""
	}
	return *e.Error.Code
}

// mentions reports whether an error body names the parameter in its details.
func mentions(body []byte, param string) bool {
	return strings.Contains(string(body), `"`+param+`"`)
}

func jsonBody(s string) *strings.Reader { return strings.NewReader(s) }

func pqInts(v ...int64) pq.Int64Array { return pq.Int64Array(v) }

// recorded lists the job_history events of a job in recording order.
func (f *fx) recorded(t *testing.T, id int64) []string {
	t.Helper()
	var evs []string
	if err := f.env.DB.Select(&evs, `SELECT event FROM job_history WHERE job_id = $1 ORDER BY id`, id); err != nil {
		t.Fatal(err)
	}
	return evs
}

// doc renders a JSON object for the raw-document fields of jobs.
func doc(m map[string]any) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// fields reads a raw document back.
func fields(raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	return m
}
