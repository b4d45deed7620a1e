package bulk_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/counts"
)

// fixture is an organization with an app and its org_admin (MANAGER on every app of it).
type fixture struct {
	env   *testkit.Env
	org   uuid.UUID
	app   uuid.UUID
	admin *testkit.Caller
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	f := &fixture{env: env, org: org, admin: env.User(t, org, auth.RoleOrgAdmin)}
	f.app = f.newApp(t, org)
	return f
}

// newApp creates an app of org without a flow.
func (f *fixture) newApp(t testing.TB, org uuid.UUID) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := f.env.DB.Get(&id, `INSERT INTO apps (organization_id, name) VALUES ($1, $2) RETURNING id`, org, "bulk "+uuid.NewString()); err != nil {
		t.Fatal(err)
	}
	return id
}

// processingState is the processing state that goes with a status on an app without a flow.
var processingState = map[string]string{
	"PENDING": "QUEUED", "SCHEDULED": "AWAITING_HUMAN", "IN_PROGRESS": "PROCESSING", "SUSPENDED": "AWAITING_HUMAN",
	"COMPLETED": "DONE", "FAILED": "ERROR", "CANCELED": "ERROR", "EXPIRED": "ERROR",
}

// seed adds n jobs of the app with the status and tags and returns their ids in order.
func (f *fixture) seed(t testing.TB, app uuid.UUID, n int, status string, tags ...string) []int64 {
	t.Helper()
	var ids []int64
	err := f.env.DB.Select(&ids, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, tags)
		SELECT a.organization_id, a.id, $2, $3, jsonb_build_object('n', g), $4
		FROM apps a, generate_series(1, $5) g WHERE a.id = $1 ORDER BY g RETURNING id`,
		app, status, processingState[status], pq.StringArray(append([]string{}, tags...)), n)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// statuses answers the status of each job.
func (f *fixture) statuses(t testing.TB, ids []int64) map[int64]string {
	t.Helper()
	var rows []struct {
		ID     int64  `db:"id"`
		Status string `db:"status"`
	}
	if err := f.env.DB.Select(&rows, `SELECT id, status FROM jobs WHERE id = ANY($1)`, pq.Int64Array(ids)); err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, r := range rows {
		out[r.ID] = r.Status
	}
	return out
}

// wantStatus fails unless every job has the status.
func (f *fixture) wantStatus(t testing.TB, ids []int64, want string) {
	t.Helper()
	got := f.statuses(t, ids)
	for _, id := range ids {
		if got[id] != want {
			t.Fatalf("job %d is %q, want %q", id, got[id], want)
		}
	}
}

// checkCounters fails unless the trigger-kept counters equal an exact count of the app's jobs.
func (f *fixture) checkCounters(t testing.TB, app uuid.UUID) map[string]int64 {
	t.Helper()
	got, err := counts.PerStatus(context.Background(), f.env.DB, app)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Status string `db:"status"`
		N      int64  `db:"n"`
	}
	if err := f.env.DB.Select(&rows, `SELECT status, count(*) AS n FROM jobs WHERE app_id = $1 GROUP BY status`, app); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, s := range counts.Statuses {
		want[s] = 0
	}
	for _, r := range rows {
		want[r.Status] = r.N
	}
	for s, n := range want {
		if got[s] != n {
			t.Fatalf("counter %s = %d, exact count %d (all: %v vs %v)", s, got[s], n, got, want)
		}
	}
	return want
}

// member adds an app_user of the app's organization as a member with the role and signs it in.
func (f *fixture) member(t testing.TB, role string) *testkit.Caller {
	t.Helper()
	c := f.env.User(t, f.org, auth.RoleAppUser)
	f.env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, $4)`, f.app, c.UserID, f.org, role)
	return c
}

// execution creates a flow execution of the organization in the status and attaches it to the job.
func (f *fixture) execution(t testing.TB, job int64, status string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	err := f.env.DB.Get(&id, `WITH flow AS (INSERT INTO flows (organization_id) VALUES ($1) RETURNING id)
		INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		SELECT $1, flow.id, 1, $2, 1 FROM flow RETURNING id`, f.org, status)
	if err == nil {
		_, err = f.env.DB.Exec(`UPDATE jobs SET flow_execution_id = $2 WHERE id = $1`, job, id)
	}
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// wait polls the operation until it finishes and returns it.
func (f *fixture) wait(t testing.TB, c *testkit.Caller, app, op uuid.UUID) v1api.BulkOperation {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := c.V1.GetBulkOperationWithResponse(context.Background(), app, op, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK {
			t.Fatalf("getBulkOperation: %d %s", res.StatusCode(), res.Body)
		}
		o := *res.JSON200
		if o.Status == "SUCCEEDED" || o.Status == "FAILED" {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation still %s after 60s (processed %d)", o.Status, o.Processed)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantError fails unless the reply has the status and, for 400, names the parameter.
func wantError(t testing.TB, what string, status int, body []byte, wantStatus int, param string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("%s: %d, want %d: %s", what, status, wantStatus, body)
	}
	if param != "" && !strings.Contains(string(body), param) {
		t.Fatalf("%s: the error does not name %s: %s", what, param, body)
	}
}
