package executions_test

import (
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestOutputTheDatabaseRefuses: a tenant's transform whose output PostgreSQL cannot store as jsonb (a
// string holding NUL, an integer of 157,827 digits) fails its execution, saying why, and the task after
// it never runs; one that fails with NUL in its message fails with U+FFFD there. The API refuses such
// values in what it is sent; a program makes them past it.
func TestOutputTheDatabaseRefuses(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleOrgAdmin)
	grant(t, env, org, 10)
	for expr, want := range map[string]string{
		`{s: (\"a\" + ([0] | implode) + \"b\")}`: "cannot be stored", `{n: reduce range(0; 19) as $i (2; . * .)}`: "cannot be stored",
		`error(\"bad\" + ([0] | implode))`: "bad\uFFFD",
	} {
		flow := testkit.NewFlow(t, user, `{"version": 1, "tasks": [
			{"name": "make", "type": "transform", "parameters": {"expression": "`+expr+`"}},
			{"name": "after", "type": "transform", "parameters": {"expression": "."}}],
			"edges": [{"source": "make", "target": "after"}]}`)
		exec := start(t, user, flow, map[string]any{}).Id
		testkit.WaitForExecution(t, user, exec, platformapi.ExecutionStatusFailed)
		var msg string
		if err := env.DB.Get(&msg, `SELECT error->>'message' FROM task_executions WHERE flow_execution_id = $1
			AND task_name = 'make' AND status = 'failed'`, exec); err != nil {
			t.Fatalf("%s: no failed attempt of make: %v", expr, err)
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: make failed with %q", expr, msg)
		}
		if got := attempts(t, env, exec); len(got) != 1 {
			t.Errorf("%s: attempts %v, want make's alone", expr, got)
		}
	}
}
