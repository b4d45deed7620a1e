package taskmarks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// op is one of the four operations called on an execution id with a valid body.
type op func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error)

var ops = map[string]op{
	"addTaskStatuses": func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error) {
		return c.AddTaskStatusesWithResponse(ctx, exec, platformapi.AddTaskStatusRequest{
			Statuses: []platformapi.AddTaskStatusRequestItem{st("extract", new("running"))}})
	},
	"listTaskStatuses": func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error) {
		return c.ListTaskStatusesWithResponse(ctx, exec, nil)
	},
	"batchPatchTaskTags": func(c *platformapi.ClientWithResponses, exec uuid.UUID) (testkit.Reply, error) {
		return c.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{
			Tags: []platformapi.PatchFlowTaskTagsRequestItem{tagOp(platformapi.Add, exec, "extract", "review", "label", "")}})
	},
}

// TestEveryOperationByStatus: 401 without credentials, 403 for a role that may not record statuses,
// 404 exactly like a random id for an execution of another organization (even of its public flow) or of
// a private flow of another user, 409 for writes on a deleted execution whose marks stay readable.
func TestEveryOperationByStatus(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, otherOrg := env.Org(t), env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	user := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleAppUser)
	outsider := env.User(t, otherOrg, auth.RoleOrgAdmin)
	anon, _ := env.Clients(t, "")

	shared := execution(t, env, org, flowOpts{creator: &colleague.UserID})
	private := execution(t, env, org, flowOpts{creator: &colleague.UserID, visibility: "private"})
	foreign := execution(t, env, otherOrg, flowOpts{creator: &outsider.UserID, visibility: "public"})
	deleted := execution(t, env, org, flowOpts{creator: &colleague.UserID, status: "deleted"})
	random := uuid.New()

	// writerOf is a caller that may call the operation with its role and sees private flows only as an
	// invited user, a creator or an admin: app_user, or integration for addTaskStatuses.
	writerOf := func(name string) *testkit.Caller {
		if name == "addTaskStatuses" {
			return integ
		}
		return user
	}
	for name, call := range ops {
		t.Run(name, func(t *testing.T) {
			res, err := call(anon, shared)
			testkit.Expect(t, res, err, http.StatusUnauthorized)

			c := writerOf(name)
			res, err = call(c.API, shared)
			testkit.Expect(t, res, err, map[bool]int{true: http.StatusOK, false: http.StatusCreated}[strings.HasPrefix(name, "list") || name == "batchPatchTaskTags"])

			missing, err := call(c.API, random)
			if err != nil {
				t.Fatal(err)
			}
			for what, id := range map[string]uuid.UUID{"private flow of another user": private, "another organization's public flow": foreign} {
				got, err := call(c.API, id)
				if err != nil {
					t.Fatal(err)
				}
				t.Log(what)
				testkit.SameAsMissing(t, got, missing)
			}
			// An administrator of another organization sees nothing of this one.
			got, err := call(outsider.API, shared)
			if err != nil {
				t.Fatal(err)
			}
			otherMissing, _ := call(outsider.API, random)
			testkit.SameAsMissing(t, got, otherMissing)

			res, err = call(c.API, deleted)
			if strings.HasPrefix(name, "list") {
				testkit.Expect(t, res, err, http.StatusOK)
			} else {
				testkit.Expect(t, res, err, http.StatusConflict)
			}
		})
	}

	// Recording statuses is for the engine and workers; people other than administrators read them.
	res, err := ops["addTaskStatuses"](user.API, shared)
	testkit.Expect(t, res, err, http.StatusForbidden)
	for _, c := range []*testkit.Caller{admin, env.User(t, org, auth.RoleBackoffice)} {
		res, err := ops["addTaskStatuses"](c.API, private)
		testkit.Expect(t, res, err, http.StatusCreated)
	}
	// A user invited to a private flow, and its creator, see its executions.
	if _, err := env.DB.Exec(`INSERT INTO flow_invitations (flow_id, user_id, organization_id)
		SELECT flow_id, $2, organization_id FROM flow_executions WHERE id = $1`, private, user.UserID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*testkit.Caller{user, colleague} {
		res, err := ops["batchPatchTaskTags"](c.API, private)
		testkit.Expect(t, res, err, http.StatusOK)
		res, err = ops["listTaskStatuses"](c.API, private)
		testkit.Expect(t, res, err, http.StatusOK)
	}
}

// TestBatchNamesTheRefusedItem: the first refused item decides the answer and is named in the details.
func TestBatchNamesTheRefusedItem(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	ok := execution(t, env, org, flowOpts{})
	deleted := execution(t, env, org, flowOpts{status: "deleted"})
	res, err := user.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: []platformapi.PatchFlowTaskTagsRequestItem{
		tagOp(platformapi.Add, ok, "a", "x", "label", ""),
		tagOp(platformapi.Add, deleted, "a", "x", "label", ""),
		tagOp(platformapi.Add, uuid.New(), "a", "x", "label", ""),
	}})
	testkit.Expect(t, res, err, http.StatusConflict)
	if d := string(testkit.Body(res)); !strings.Contains(d, `"loc":["body","tags",1,"flow_execution_id"]`) {
		t.Fatalf("details do not name item 1: %s", d)
	}
}

// TestLimits: 1 to 100 items per batch and the contract's lengths, at and past each bound.
func TestLimits(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	integ := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := execution(t, env, org, flowOpts{})
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes

	statuses := func(n int, name string, status *string) (testkit.Reply, error) {
		items := make([]platformapi.AddTaskStatusRequestItem, n)
		for i := range items {
			items[i] = st(name, status)
		}
		return integ.API.AddTaskStatusesWithResponse(ctx, exec, platformapi.AddTaskStatusRequest{Statuses: items})
	}
	tags := func(n int, task, tag, typ string) (testkit.Reply, error) {
		items := make([]platformapi.PatchFlowTaskTagsRequestItem, n)
		for i := range items {
			items[i] = tagOp(platformapi.Add, exec, task, tag, typ, "")
		}
		return integ.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: items})
	}
	for _, c := range []struct {
		what string
		want int
		call func() (testkit.Reply, error)
	}{
		{"0 statuses", 422, func() (testkit.Reply, error) { return statuses(0, "a", nil) }},
		{"101 statuses", 422, func() (testkit.Reply, error) { return statuses(101, "a", nil) }},
		{"100 statuses", 201, func() (testkit.Reply, error) { return statuses(100, "a", new("running")) }},
		{"task name of 256", 422, func() (testkit.Reply, error) { return statuses(1, long(256), nil) }},
		{"task name of 255", 201, func() (testkit.Reply, error) { return statuses(1, long(255), nil) }},
		{"empty task name", 422, func() (testkit.Reply, error) { return statuses(1, "", nil) }},
		{"status of 51", 422, func() (testkit.Reply, error) { return statuses(1, "a", new(long(51))) }},
		{"status of 50", 201, func() (testkit.Reply, error) { return statuses(1, "a", new(long(50))) }},
		{"0 tags", 422, func() (testkit.Reply, error) { return tags(0, "a", "t", "k") }},
		{"101 tags", 422, func() (testkit.Reply, error) { return tags(101, "a", "t", "k") }},
		{"100 tags", 200, func() (testkit.Reply, error) { return tags(100, "a", "t", "k") }},
		{"tag task name of 201", 422, func() (testkit.Reply, error) { return tags(1, long(201), "t", "k") }},
		{"tag task name of 200", 200, func() (testkit.Reply, error) { return tags(1, long(200), "t", "k") }},
		{"tag of 201", 422, func() (testkit.Reply, error) { return tags(1, "a", long(201), "k") }},
		{"tag of 200", 200, func() (testkit.Reply, error) { return tags(1, "a", long(200), "k") }},
		{"tag type of 101", 422, func() (testkit.Reply, error) { return tags(1, "a", "t", long(101)) }},
		{"tag type of 100", 200, func() (testkit.Reply, error) { return tags(1, "a", "t", long(100)) }},
		{"empty tag", 422, func() (testkit.Reply, error) { return tags(1, "a", "", "k") }},
		{"list statuses, task name of 256", 422, func() (testkit.Reply, error) {
			return integ.API.ListTaskStatusesWithResponse(ctx, exec, &platformapi.ListTaskStatusesParams{TaskName: new(long(256))})
		}},
		{"list tags, tag of 201", 422, func() (testkit.Reply, error) {
			return integ.API.ListTaskTagsWithResponse(ctx, &platformapi.ListTaskTagsParams{Tag: new(long(201))})
		}},
		{"list tags, limit 101", 422, func() (testkit.Reply, error) {
			return integ.API.ListTaskTagsWithResponse(ctx, &platformapi.ListTaskTagsParams{Limit: new(101)})
		}},
	} {
		before := marks(t, env, exec)
		res, err := c.call()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.want {
			t.Errorf("%s: status %d, want %d: %.300s", c.what, res.StatusCode(), c.want, testkit.Body(res))
		}
		if after := marks(t, env, exec); c.want >= 400 && after != before {
			t.Errorf("%s: refused, yet the statuses and tags went from %d to %d rows", c.what, before, after)
		}
	}
}

// marks counts the status and tag rows of an execution: a refused request writes none.
func marks(t *testing.T, env *testkit.Env, exec uuid.UUID) int {
	t.Helper()
	var n int
	if err := env.DB.Get(&n, `SELECT (SELECT count(*) FROM flow_task_statuses WHERE flow_execution_id = $1)
		+ (SELECT count(*) FROM flow_task_tags WHERE flow_execution_id = $1)`, exec); err != nil {
		t.Fatal(err)
	}
	return n
}
