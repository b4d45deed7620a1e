package executors_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// The helpers run whole flows through the server: created and started through the API, run by the
// engine on River, observed through the database.

var ctx = context.Background()

// runFlow creates a flow with definition in a fresh organization with credits, starts it with input
// and waits for one of the final statuses.
func runFlow(t *testing.T, env *testkit.Env, definition string, input map[string]any) uuid.UUID {
	t.Helper()
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	if err := credits.Grant(ctx, env.DB, org, 10); err != nil {
		t.Fatal(err)
	}
	vis := platformapi.Organization
	created, err := user.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "flow",
		Definition: json.RawMessage(definition), Visibility: &vis})
	if err != nil || created.StatusCode() != http.StatusCreated {
		t.Fatalf("create flow: %v %s", err, created.Body)
	}
	if len(*created.JSON201.ValidationErrors) != 0 {
		t.Fatalf("the test flow is not valid: %+v", *created.JSON201.ValidationErrors)
	}
	started, err := user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{
		FlowId: created.JSON201.Id, Input: input})
	if err != nil || started.StatusCode() != http.StatusCreated {
		t.Fatalf("start: %v %s", err, started.Body)
	}
	id := started.JSON201.Id
	deadline := time.Now().Add(20 * time.Second)
	for {
		var status string
		if err := env.DB.Get(&status, `SELECT status FROM flow_executions WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if status == "completed" || status == "failed" {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("execution %s is still %s", id, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// attempt is one task_executions row.
type attempt struct {
	Idx    int             `db:"task_execution_idx"`
	Status string          `db:"status"`
	Output json.RawMessage `db:"output"`
	Error  json.RawMessage `db:"error"`
}

func attemptsOf(t *testing.T, env *testkit.Env, exec uuid.UUID, task string) []attempt {
	t.Helper()
	var rows []attempt
	if err := env.DB.Select(&rows, `SELECT task_execution_idx, status, coalesce(output, 'null') AS output,
		coalesce(error, 'null') AS error FROM task_executions WHERE flow_execution_id = $1 AND task_name = $2
		ORDER BY task_execution_idx`, exec, task); err != nil {
		t.Fatal(err)
	}
	return rows
}

func executionStatus(t *testing.T, env *testkit.Env, exec uuid.UUID) string {
	t.Helper()
	var status string
	if err := env.DB.Get(&status, `SELECT status FROM flow_executions WHERE id = $1`, exec); err != nil {
		t.Fatal(err)
	}
	return status
}
