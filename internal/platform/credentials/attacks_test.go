package credentials_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// server is a real `loopwork serve` with an organization, its org_admin and an app_user, each with
// a client of the contract.
type server struct {
	p            *testkit.Process
	db           *sqlx.DB
	admin, user  *platformapi.ClientWithResponses
	adminID, org uuid.UUID
	userID       uuid.UUID
}

// serve starts the binary with loopback targets allowed (the tests' HTTP and database servers are
// local) and env added to its environment.
func serve(t *testing.T, env ...string) *server {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	s := &server{db: db}
	if err := db.Get(&s.org, `INSERT INTO organizations (name) VALUES ('tenants') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := credits.Grant(context.Background(), db, s.org, 1000); err != nil {
		t.Fatal(err)
	}
	adminKey, adminID := seedUser(t, db, s.org, auth.RoleOrgAdmin)
	userKey, userID := seedUser(t, db, s.org, auth.RoleAppUser)
	s.userID = userID
	s.adminID = adminID
	s.p = testkit.Serve(t, bin, testkit.DSN(t, db), testkit.FreePort(t), append([]string{"LOOPWORK_OUTBOUND_ALLOW=127.0.0.0/8"}, env...)...)
	s.admin, s.user = client(t, s.p.URL, adminKey), client(t, s.p.URL, userKey)
	return s
}

// seedUser writes a confirmed user of role in org with an API key, and returns the key and the user's id.
func seedUser(t *testing.T, db *sqlx.DB, org uuid.UUID, role auth.Role) (string, uuid.UUID) {
	t.Helper()
	return testkit.SeedUser(t, db, org, role, uuid.NewString()+"@tenants.test")
}

func client(t *testing.T, base, token string) *platformapi.ClientWithResponses {
	t.Helper()
	c, err := platformapi.NewClientWithResponses(base, platformapi.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// credential creates an api_key credential as c and answers its id.
func credential(t *testing.T, c *platformapi.ClientWithResponses, key string, shared bool, domains []string) uuid.UUID {
	t.Helper()
	body := platformapi.CredentialCreateRequest{Name: uuid.NewString(), Provider: "vendor_b", CredentialType: "api_key",
		Data: &map[string]any{"api_key": key}, Shared: &shared}
	if domains != nil {
		body.AllowedDomains = &domains
	}
	res, err := c.CreateCredentialWithResponse(ctx, body)
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201.Id
}

// httpFlow is the definition of one http_request task calling url with credential id.
func httpFlow(url string, id uuid.UUID) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"version": 1, "edges": []any{}, "tasks": []any{map[string]any{
		"name": "call", "type": "http_request", "parameters": map[string]any{"url": url, "credential_id": id.String()}}}})
	return b
}

// run starts an execution of the flow's latest version as c and waits until its task has an attempt
// that ended; it answers the attempt's status and error.
func (s *server) run(t *testing.T, c *platformapi.ClientWithResponses, flow uuid.UUID) (string, string) {
	t.Helper()
	started, err := c.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{}})
	testkit.Expect(t, started, err, http.StatusCreated)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var a struct {
			Status string `db:"status"`
			Error  string `db:"error"`
		}
		err := s.db.Get(&a, `SELECT status, coalesce(error::text, '') AS error FROM task_executions
			WHERE flow_execution_id = $1 AND status IN ('completed', 'failed') ORDER BY task_execution_idx DESC LIMIT 1`,
			started.JSON201.Id)
		if err == nil {
			return a.Status, a.Error
		}
		if time.Now().After(deadline) {
			t.Fatalf("no attempt ended within 20 s: %v\n%s", err, s.p.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// validation reads a 422 body as its items with their request-specific input left out.
func validation(t *testing.T, body []byte) []problem {
	t.Helper()
	var v struct{ Detail []problem }
	if err := json.Unmarshal(body, &v); err != nil || len(v.Detail) == 0 {
		t.Fatalf("not an HTTPValidationError: %s", body)
	}
	return v.Detail
}
