package exports_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

type fixture struct {
	env   *testkit.Env
	org   uuid.UUID
	app   uuid.UUID
	admin *testkit.Caller
}

func newFixture(t testing.TB, opts ...testkit.Option) *fixture {
	t.Helper()
	env := testkit.NewEnv(t, opts...)
	org := env.Org(t)
	f := &fixture{env: env, org: org, admin: env.User(t, org, auth.RoleOrgAdmin)}
	f.app = f.newApp(t, org, "Invoices app")
	return f
}

func (f *fixture) newApp(t testing.TB, org uuid.UUID, name string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := f.env.DB.Get(&id, `INSERT INTO apps (organization_id, name) VALUES ($1, $2) RETURNING id`, org, name); err != nil {
		t.Fatal(err)
	}
	return id
}

// seedFixed adds the jobs every format test exports: fixed times, nested input and response, a table,
// an annotation, a job without response, feedback and history.
func (f *fixture) seedFixed(t testing.TB) []int64 {
	t.Helper()
	var ids []int64
	err := f.env.DB.Select(&ids, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response,
			tags, batch_id, score, created_at, completed_at)
		VALUES
		($1, $2, 'COMPLETED', 'DONE', '{"doc": {"name": "a, \"b\""}, "n": 1}',
		 '{"total": 12.5, "amount": 3, "total_note": "round", "items": [{"sku": "x", "qty": 2}, {"sku": "y", "qty": 1}]}',
		 '{red}', 'b1', 0.9, '2026-01-02T03:04:05Z', '2026-01-02T03:05:00Z'),
		($1, $2, 'SCHEDULED', 'AWAITING_HUMAN', '{"n": 2}', NULL, '{}', NULL, NULL, '2026-01-02T03:04:06Z', NULL)
		RETURNING id`, f.org, f.app)
	if err != nil {
		t.Fatal(err)
	}
	f.env.DB.MustExec(`INSERT INTO job_feedback (job_id, app_id, organization_id, message, feedback_tags, correct, created_at)
		VALUES ($1, $2, $3, 'looks fine', '{ok}', true, '2026-01-03T00:00:00Z')`, ids[0], f.app, f.org)
	return ids
}

// export starts an export with params and waits for its file; it answers the export and the file.
func (f *fixture) export(t testing.TB, c *testkit.Caller, params v1api.ExportJobResponsesParams) (v1api.Export, string) {
	t.Helper()
	res, err := c.V1.ExportJobResponsesWithResponse(ctx, f.app, &params, v1api.AppInstanceEmail{})
	testkit.Expect(t, res, err, http.StatusAccepted)
	e := f.wait(t, c, res.JSON202.ExportId)
	if e.Status != "SUCCEEDED" {
		t.Fatalf("export %s: %+v", e.Status, e)
	}
	return e, f.download(t, c, e.Filename)
}

// wait polls the export until it is finished, for up to 30 s.
func (f *fixture) wait(t testing.TB, c *testkit.Caller, id uuid.UUID) v1api.Export {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := c.V1.GetExportWithResponse(ctx, f.app, id, nil)
		testkit.Expect(t, res, err, http.StatusOK)
		if s := res.JSON200.Status; s != "QUEUED" && s != "RUNNING" {
			return *res.JSON200
		}
		if time.Now().After(deadline) {
			t.Fatalf("export still %s after 30 s", res.JSON200.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// download asks for the file's link and fetches it without credentials.
func (f *fixture) download(t testing.TB, c *testkit.Caller, filename string) string {
	t.Helper()
	link, err := c.V1.GetJobResponsesLinkWithResponse(ctx, filename, nil)
	testkit.Expect(t, link, err, http.StatusOK)
	resp, err := http.Get(link.JSON200.Url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %d %s", resp.StatusCode, b)
	}
	if link.JSON200.SizeBytes == nil || *link.JSON200.SizeBytes != int64(len(b)) {
		t.Fatalf("link says %v bytes, got %d", link.JSON200.SizeBytes, len(b))
	}
	return string(b)
}

// member is a user of the organization with the role on the app.
func (f *fixture) member(t testing.TB, role string) *testkit.Caller {
	t.Helper()
	c := f.env.User(t, f.org, auth.RoleAppUser)
	f.env.ChangeAccess(t, `INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, $4)`, f.app, c.UserID, f.org, role)
	return c
}
