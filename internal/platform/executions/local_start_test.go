package executions_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestFirstTasksClaimedByALostProcessRunAfterTheirLease: a start writes its first tasks as running under
// this process's lease, to run here once it commits. If the process is gone by then (here: the start
// commits and its first tasks are dropped instead of run, as a kill -9 right after the commit would
// leave them), the lease runs out and the sweep runs them; the execution completes, each task once.
func TestFirstTasksClaimedByALostProcessRunAfterTheirLease(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.TaskLease = time.Second }))
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	flow := testkit.NewFlowSeenBy(t, user, `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "{n: (.n + 1)}"}},
		{"name": "b", "type": "transform", "parameters": {"expression": "{n: (.n * 10)}"}}],
		"edges": [{"source": "a", "target": "b"}]}`, platformapi.Organization)

	var x uuid.UUID
	err := dbx.WithTx(ctx, env.DB, func(tx *sqlx.Tx) error {
		v, ok, err := executions.JobVersion(ctx, tx, flow)
		if err != nil || !ok {
			t.Fatalf("no version to run: %v", err)
		}
		id, st, err := executions.Create(ctx, tx, env.Server.Engine(), executions.Spec{Org: org, Flow: flow, Version: v,
			Input: json.RawMessage(`{"n": 4}`), Actor: "test"})
		st.Drop() // committed below, never run here
		x = id.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var status, first string
	if err := env.DB.QueryRow(`SELECT x.status, t.status FROM flow_executions x JOIN task_executions t ON t.flow_execution_id = x.id
		WHERE x.id = $1 AND t.task_name = 'a'`, x).Scan(&status, &first); err != nil {
		t.Fatal(err)
	}
	if status != "queued" || first != "running" {
		t.Fatalf("after the start: execution %s, first task %s; want queued with its first task claimed (running)", status, first)
	}
	done := testkit.WaitForExecution(t, user, x, platformapi.ExecutionStatusCompleted)
	if b, _ := json.Marshal(done.Output); string(b) != `{"n":50}` {
		t.Fatalf("output %s", b)
	}
	got := attempts(t, env, x)
	if len(got) != 2 || got["a#0"].Status != "completed" || got["b#0"].Status != "completed" {
		t.Fatalf("attempts %+v: each task once, the lost one run again under the same index", got)
	}
}
