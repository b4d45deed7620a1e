package taskmarks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// flowOpts describe the flow of an execution a test makes.
type flowOpts struct {
	creator    *uuid.UUID
	visibility string // private, organization or public; empty: organization
	status     string // the execution's status; empty: running
}

// execution creates a flow of org, its version 1 and one execution of it, and returns the execution.
// A deleted execution is marked as deleteFlowExecution marks it.
func execution(t testing.TB, env *testkit.Env, org uuid.UUID, o flowOpts) uuid.UUID {
	t.Helper()
	if o.visibility == "" {
		o.visibility = "organization"
	}
	if o.status == "" {
		o.status = "running"
	}
	var flow, exec uuid.UUID
	if err := env.DB.Get(&flow, `INSERT INTO flows (organization_id, created_by, executions_started) VALUES ($1, $2, 1) RETURNING id`,
		org, o.creator); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, visibility)
		VALUES ($1, 1, $2, 'test flow', '{"tasks": []}', $3)`, flow, org, o.visibility); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&exec, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number, created_by, deleted_at)
		VALUES ($1, $2, 1, $3, 1, $4, CASE WHEN $3 = 'deleted' THEN now() END) RETURNING id`, org, flow, o.status, o.creator); err != nil {
		t.Fatal(err)
	}
	return exec
}

// deleteExecution marks an execution deleted, as deleteFlowExecution does.
func deleteExecution(t testing.TB, env *testkit.Env, id uuid.UUID) {
	t.Helper()
	if _, err := env.DB.Exec(`UPDATE flow_executions SET status = 'deleted', deleted_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

// st is one status item; nil status clears.
func st(task string, status *string) platformapi.AddTaskStatusRequestItem {
	return platformapi.AddTaskStatusRequestItem{TaskName: task, Status: status}
}

// addStatuses records statuses and fails the test unless it answers 201.
func addStatuses(t testing.TB, c *testkit.Caller, exec uuid.UUID, items ...platformapi.AddTaskStatusRequestItem) []platformapi.FlowTaskStatusAPI {
	t.Helper()
	res, err := c.API.AddTaskStatusesWithResponse(ctx, exec, platformapi.AddTaskStatusRequest{Statuses: items})
	testkit.Expect(t, res, err, http.StatusCreated)
	return *res.JSON201
}

// listStatuses lists statuses and fails the test unless it answers 200.
func listStatuses(t testing.TB, c *testkit.Caller, exec uuid.UUID, p *platformapi.ListTaskStatusesParams) []platformapi.FlowTaskStatusAPI {
	t.Helper()
	res, err := c.API.ListTaskStatusesWithResponse(ctx, exec, p)
	testkit.Expect(t, res, err, http.StatusOK)
	return *res.JSON200
}

// tagOp is one tag operation; meta is the JSON text of tag_metadata, empty to omit it.
func tagOp(op platformapi.TaskTagOperation, exec uuid.UUID, task, tag, typ, meta string) platformapi.PatchFlowTaskTagsRequestItem {
	it := platformapi.PatchFlowTaskTagsRequestItem{Operation: op, FlowExecutionId: exec, TaskName: task, Tag: tag, TagType: typ}
	if meta != "" {
		it.TagMetadata = json.RawMessage(meta)
	}
	return it
}

// patch applies tag operations and fails the test unless it answers 200; it returns the result statuses
// and the results.
func patch(t testing.TB, c *testkit.Caller, items ...platformapi.PatchFlowTaskTagsRequestItem) ([]string, []platformapi.PatchFlowTaskTagsResultItem) {
	t.Helper()
	res, err := c.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: items})
	testkit.Expect(t, res, err, http.StatusOK)
	var sts []string
	for _, r := range res.JSON200.Tags {
		sts = append(sts, string(r.Status))
	}
	return sts, res.JSON200.Tags
}

// listTags lists tags and fails the test unless it answers 200.
func listTags(t testing.TB, c *testkit.Caller, p platformapi.ListTaskTagsParams) *platformapi.FlowTaskTagListResponse {
	t.Helper()
	res, err := c.API.ListTaskTagsWithResponse(ctx, &p)
	testkit.Expect(t, res, err, http.StatusOK)
	return res.JSON200
}

// tagRows counts the rows of an execution's tags by status, straight from the database.
func tagRows(t testing.TB, env *testkit.Env, exec uuid.UUID) (active, deleted int) {
	t.Helper()
	if err := env.DB.QueryRow(`SELECT count(*) FILTER (WHERE status = 'active'), count(*) FILTER (WHERE status = 'deleted')
		FROM flow_task_tags WHERE flow_execution_id = $1`, exec).Scan(&active, &deleted); err != nil {
		t.Fatal(err)
	}
	return active, deleted
}
