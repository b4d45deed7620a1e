// Package typescript_test runs the TypeScript example against a real server, so the types and client in
// gen/ts are known to compile under strict checking and to speak to loopwork as it is.
package typescript_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExample installs the packages package-lock.json pins, compiles example.ts with gen/ts under the
// strict tsconfig.json (a type error fails the test), runs it as an org_admin with a password, and checks
// in the database that what it reports happened: an app of its flow holding the jobs it submitted, the
// review it completed, and the execution completed with the flow's output.
func TestExample(t *testing.T) {
	t.Parallel()
	dir := compile(t)
	env := testkit.NewEnv(t)
	org := env.Org(t)
	// Credits are a backoffice grant, which the example does not have: three jobs and one execution.
	if err := credits.Grant(context.Background(), env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	user, email := env.NewUser(t, org, auth.RoleOrgAdmin)

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("out", "sdk", "typescript", "example.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOOPWORK_URL="+env.URL, "LOOPWORK_EMAIL="+email, "LOOPWORK_PASSWORD="+testkit.Password)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("the example said:\n%s", out)
	if err != nil {
		t.Fatalf("the example failed: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		FlowID      uuid.UUID `json:"flow_id"`
		APIKeyID    uuid.UUID `json:"api_key_id"`
		AppID       uuid.UUID `json:"app_id"`
		JobIDs      []int64   `json:"job_ids"`
		ExecutionID uuid.UUID `json:"execution_id"`
		ReviewID    uuid.UUID `json:"review_id"`
	}
	if err := json.Unmarshal(lastLine(out), &got); err != nil {
		t.Fatalf("the example's last line is not its summary: %v", err)
	}

	var app struct {
		Org uuid.UUID `db:"organization_id"`
		API uuid.UUID `db:"api_id"`
	}
	if err := env.DB.Get(&app, `SELECT organization_id, api_id FROM apps WHERE id = $1`, got.AppID); err != nil {
		t.Fatalf("app %s: %v", got.AppID, err)
	}
	if app.Org != org || app.API != got.FlowID {
		t.Fatalf("app of organization %s and flow %s, want %s and %s", app.Org, app.API, org, got.FlowID)
	}
	var keyOwner uuid.UUID
	if err := env.DB.Get(&keyOwner, `SELECT user_id FROM api_keys WHERE id = $1 AND organization_id = $2`, got.APIKeyID, org); err != nil || keyOwner != user {
		t.Fatalf("API key %s belongs to %s (%v), want %s", got.APIKeyID, keyOwner, err, user)
	}
	var jobs []int64
	if err := env.DB.Select(&jobs, `SELECT id FROM jobs WHERE app_id = $1 AND flow_execution_id IS NOT NULL
		AND input ? 'name' AND 'sdk-example' = ANY (tags) ORDER BY id`, got.AppID); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 || !slices.Equal(jobs, got.JobIDs) {
		t.Fatalf("the app holds jobs %v running on the engine, the example submitted %v", jobs, got.JobIDs)
	}

	var review struct {
		Status    string    `db:"status"`
		Result    *bool     `db:"review_result"`
		By        uuid.UUID `db:"completed_by"`
		Execution uuid.UUID `db:"flow_execution_id"`
	}
	if err := env.DB.Get(&review, `SELECT status, review_result, coalesce(completed_by, '00000000-0000-0000-0000-000000000000') AS completed_by,
		flow_execution_id FROM human_review_tasks WHERE id = $1`, got.ReviewID); err != nil {
		t.Fatal(err)
	}
	if review.Status != "completed" || review.Result == nil || !*review.Result || review.By != user || review.Execution != got.ExecutionID {
		t.Fatalf("review %+v, want completed, approved by %s, of execution %s", review, user, got.ExecutionID)
	}
	var exec struct {
		Status string          `db:"status"`
		Flow   uuid.UUID       `db:"flow_id"`
		Output json.RawMessage `db:"output"`
	}
	if err := env.DB.Get(&exec, `SELECT status, flow_id, coalesce(output, 'null') AS output FROM flow_executions
		WHERE id = $1 AND organization_id = $2`, got.ExecutionID, org); err != nil {
		t.Fatal(err)
	}
	var output map[string]any
	_ = json.Unmarshal(exec.Output, &output)
	if exec.Status != "completed" || exec.Flow != got.FlowID || output["greeting"] != "Hello, Edsger" || output["approved"] != true {
		t.Fatalf("execution %s of flow %s with output %s, want completed with the approved greeting", exec.Status, exec.Flow, exec.Output)
	}
}

// lastLine is the last non-empty line of out.
func lastLine(out []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			last = append(last[:0], sc.Bytes()...)
		}
	}
	return last
}
