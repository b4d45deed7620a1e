package executions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

func grant(t testing.TB, env *testkit.Env, org uuid.UUID, n int64) {
	t.Helper()
	if err := credits.Grant(ctx, env.DB, org, n); err != nil {
		t.Fatal(err)
	}
}

func start(t testing.TB, c *testkit.Caller, flow uuid.UUID, input map[string]any) *platformapi.FlowExecutionResponse {
	t.Helper()
	res, err := c.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: input})
	testkit.Expect(t, res, err, http.StatusCreated)
	return res.JSON201
}

// attempt is a task_executions row as tests compare it.
type attempt struct {
	Task   string          `db:"task_name"`
	Idx    int             `db:"task_execution_idx"`
	Status string          `db:"status"`
	Output json.RawMessage `db:"output"`
}

func attempts(t testing.TB, env *testkit.Env, exec uuid.UUID) map[string]attempt {
	t.Helper()
	var rows []attempt
	if err := env.DB.Select(&rows, `SELECT task_name, task_execution_idx, status, coalesce(output, 'null') AS output
		FROM task_executions WHERE flow_execution_id = $1 ORDER BY task_name, task_execution_idx`, exec); err != nil {
		t.Fatal(err)
	}
	out := map[string]attempt{}
	for _, r := range rows {
		out[r.Task+"#"+string(rune('0'+r.Idx))] = r
	}
	return out
}
