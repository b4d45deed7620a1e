package taskexecutions_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestEveryOperationByStatus: 401 without credentials, 403 for a role that may not report or claim, 404
// exactly like a random id for an execution of another organization or of a private flow of another
// user, 409 for reports on a deleted execution whose attempts stay readable.
func TestEveryOperationByStatus(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, otherOrg := env.Org(t), env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	user := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	outsider := env.User(t, otherOrg, auth.RoleOrgAdmin)
	anon, _ := env.Clients(t, "")

	shared := bareExecution(t, env, org, &colleague.UserID, "organization", "running")
	private := bareExecution(t, env, org, &colleague.UserID, "private", "running")
	foreign := bareExecution(t, env, otherOrg, &outsider.UserID, "public", "running")
	deleted := bareExecution(t, env, org, &colleague.UserID, "organization", "running")
	record(t, integ, req(deleted, "a", 0, platformapi.TaskExecutionStatusRunning, "", ""), http.StatusCreated)
	if _, err := env.DB.Exec(`UPDATE flow_executions SET status = 'deleted', deleted_at = now() WHERE id = $1`, deleted); err != nil {
		t.Fatal(err)
	}
	random := uuid.New()

	report := func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error) {
		return c.RecordTaskExecutionWithResponse(ctx, req(exec, "a", 0, platformapi.TaskExecutionStatusQueued, "", ""))
	}
	lister := func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error) {
		return c.ListTaskExecutionRecordsWithResponse(ctx, &platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})
	}

	res, err := report(anon, shared)
	testkit.Expect(t, res, err, http.StatusUnauthorized)
	res, err = lister(anon, shared)
	testkit.Expect(t, res, err, http.StatusUnauthorized)
	cres, err := anon.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w"})
	testkit.Expect(t, cres, err, http.StatusUnauthorized)

	// Reporting and claiming are for workers and administrators; every role reads.
	res, err = report(user.API, shared)
	testkit.Expect(t, res, err, http.StatusForbidden)
	cres, err = user.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w"})
	testkit.Expect(t, cres, err, http.StatusForbidden)
	res, err = report(integ.API, shared)
	testkit.Expect(t, res, err, http.StatusCreated)
	for i, c := range []*testkit.Caller{env.User(t, org, auth.RoleOrgAdmin), env.User(t, org, auth.RoleBackoffice)} {
		res, err = report(c.API, private)
		testkit.Expect(t, res, err, []int{http.StatusCreated, http.StatusOK}[i]) // the first creates, the second repeats
		cres, err = c.API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: "w"})
		testkit.Expect(t, cres, err, http.StatusNoContent)
	}
	if got := list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: shared}); len(got) != 1 {
		t.Fatalf("an app user lists %d attempts, want 1", len(got))
	}

	for name, call := range map[string]func(*platformapi.ClientWithResponses, uuid.UUID) (testkit.Reply, error){
		"recordTaskExecution": report, "listTaskExecutionRecords": lister} {
		c := integ
		if name == "listTaskExecutionRecords" {
			c = user
		}
		missing, err := call(c.API, random)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []uuid.UUID{foreign, private} {
			if id == private && c == integ {
				continue // an integration key is no user, so it sees private flows only through an administrator's role
			}
			got, err := call(c.API, id)
			if err != nil {
				t.Fatal(err)
			}
			testkit.SameAsMissing(t, got, missing)
		}
		got, err := call(outsider.API, shared)
		if err != nil {
			t.Fatal(err)
		}
		otherMissing, _ := call(outsider.API, random)
		testkit.SameAsMissing(t, got, otherMissing)

		res, err := call(c.API, deleted)
		if name == "listTaskExecutionRecords" {
			testkit.Expect(t, res, err, http.StatusOK)
		} else {
			testkit.Expect(t, res, err, http.StatusConflict)
		}
	}
}

// TestReportsMoveForward: the first report creates (201), later ones update (200); the status only moves
// forward, a repeat changes only the fields sent, output and error go only with their statuses, and the
// server keeps the timestamps.
func TestReportsMoveForward(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := bareExecution(t, env, org, nil, "organization", "running")

	a := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusQueued, `{"doc": 1}`, ""), http.StatusCreated)
	if a.OrganizationId != org || a.StartedAt != nil || a.CompletedAt != nil || a.Tags == nil || len(a.Tags) != 0 {
		t.Fatalf("queued attempt %+v", a)
	}
	again := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusQueued, "", ""), http.StatusOK)
	if again.Id != a.Id || again.Input.(map[string]any)["doc"] != 1.0 {
		t.Fatalf("a repeat without input lost it: %+v", again)
	}
	r := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusRunning, "", ""), http.StatusOK)
	if r.StartedAt == nil || r.CompletedAt != nil || r.Input == nil {
		t.Fatalf("running attempt %+v", r)
	}
	r2 := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusRunning, `{"doc": 2}`, ""), http.StatusOK)
	if !r2.StartedAt.Equal(*r.StartedAt) || r2.Input.(map[string]any)["doc"] != 2.0 {
		t.Fatalf("a repeated running changed started_at or ignored the input: %+v", r2)
	}
	c := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusCompleted, "", `{"ok": true}`), http.StatusOK)
	if c.CompletedAt == nil || c.Output.(map[string]any)["ok"] != true || c.Error != nil {
		t.Fatalf("completed attempt %+v", c)
	}
	// An idempotent retry of the final report changes nothing it does not send.
	c2 := record(t, integ, req(exec, "extract", 0, platformapi.TaskExecutionStatusCompleted, "", ""), http.StatusOK)
	if !c2.CompletedAt.Equal(*c.CompletedAt) || c2.Output.(map[string]any)["ok"] != true || c2.Input.(map[string]any)["doc"] != 2.0 {
		t.Fatalf("a repeated completed changed the attempt: %+v", c2)
	}

	// Backward moves and moves out of a final status answer 409 naming both statuses.
	for _, to := range []platformapi.TaskExecutionStatus{"running", "queued", "failed", "cancelled"} {
		res, err := integ.API.RecordTaskExecutionWithResponse(ctx, req(exec, "extract", 0, to, "", ""))
		testkit.Expect(t, res, err, http.StatusConflict)
		if msg := string(res.Body); !strings.Contains(msg, "from completed to "+string(to)) {
			t.Fatalf("409 does not name both statuses: %s", msg)
		}
	}
	record(t, integ, req(exec, "load", 0, platformapi.TaskExecutionStatusRunning, "", ""), http.StatusCreated)
	res, err := integ.API.RecordTaskExecutionWithResponse(ctx, req(exec, "load", 0, platformapi.TaskExecutionStatusQueued, "", ""))
	testkit.Expect(t, res, err, http.StatusConflict)
	if !strings.Contains(string(res.Body), "from running to queued") {
		t.Fatalf("409 does not name both statuses: %s", res.Body)
	}

	// A failure keeps the worker's error; a first report may be final at once.
	f := req(exec, "load", 0, platformapi.TaskExecutionStatusFailed, "", "")
	f.Error = &platformapi.TaskExecutionError{Message: "boom", Type: new("ValueError"), Traceback: new("line 1")}
	got := record(t, integ, f, http.StatusOK)
	if got.Error == nil || got.Error.Message != "boom" || *got.Error.Type != "ValueError" || got.Output != nil {
		t.Fatalf("failed attempt %+v", got)
	}
	k := record(t, integ, req(exec, "skip", 3, platformapi.TaskExecutionStatusCancelled, "", ""), http.StatusCreated)
	if k.StartedAt != nil || k.CompletedAt == nil || k.TaskExecutionIdx != 3 {
		t.Fatalf("cancelled at once %+v", k)
	}
	d := record(t, integ, req(exec, "fast", 0, platformapi.TaskExecutionStatusCompleted, "", `[1, 2]`), http.StatusCreated)
	if d.StartedAt == nil || d.CompletedAt == nil {
		t.Fatalf("completed at once %+v", d)
	}

	// output only with completed, error only with failed, and the contract's lengths.
	bad := []platformapi.CreateTaskExecutionRequest{
		req(exec, "x", 0, platformapi.TaskExecutionStatusRunning, "", `{"early": true}`),
		req(exec, "x", 0, platformapi.TaskExecutionStatusFailed, "", `1`),
		req(exec, strings.Repeat("n", 201), 0, platformapi.TaskExecutionStatusQueued, "", ""),
		req(exec, "x", -1, platformapi.TaskExecutionStatusQueued, "", ""),
		req(exec, "x", 0, "done", "", ""),
	}
	e := req(exec, "x", 0, platformapi.TaskExecutionStatusCompleted, "", "")
	e.Error = &platformapi.TaskExecutionError{Message: "no"}
	bad = append(bad, e)
	for i, b := range bad {
		res, err := integ.API.RecordTaskExecutionWithResponse(ctx, b)
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		if i == 0 && !strings.Contains(string(res.Body), `"loc":["body","output"]`) {
			t.Fatalf("422 does not name the output: %s", res.Body)
		}
	}
	// Refused reports wrote nothing: no attempt of x, and the completed attempt is as it was.
	var written int
	if err := env.DB.Get(&written, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND task_name = 'x'`, exec); err != nil || written != 0 {
		t.Fatalf("refused reports left %d attempts (%v)", written, err)
	}
	var status string
	var updated time.Time
	if err := env.DB.QueryRow(`SELECT status, updated_at FROM task_executions WHERE id = $1`, c2.Id).Scan(&status, &updated); err != nil ||
		status != "completed" || !updated.Equal(c2.UpdatedAt) {
		t.Fatalf("the 409s changed the completed attempt: %s at %s (%v)", status, updated, err)
	}
	record(t, integ, req(exec, strings.Repeat("n", 200), 0, platformapi.TaskExecutionStatusQueued, "", ""), http.StatusCreated)
	// A null output or error counts as not sent.
	nul := req(exec, "y", 0, platformapi.TaskExecutionStatusRunning, "", "null")
	record(t, integ, nul, http.StatusCreated)
}
