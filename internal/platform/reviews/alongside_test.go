package reviews_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestReviewsOfOneJoinCompletedAtOnce: twelve reviewers complete, at the same moment, the twelve reviews
// a join waits for, while one of them sends theirs twice and a stranger from another organization tries
// one. The twelve are answered 200 and recorded once each with their own verdict (the completions that
// arrive together are recorded together, and a round that meets the duplicate is recorded one by one), the
// duplicate 409, the stranger 404, and the join runs once on all twelve.
func TestReviewsOfOneJoinCompletedAtOnce(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	owner := env.User(t, org, auth.RoleAppUser)
	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	const n = 12
	reviewers := make([]*testkit.Caller, n)
	tasks := []string{`{"name": "root", "type": "transform", "parameters": {"expression": "{value: 1}"}}`,
		`{"name": "join", "type": "transform", "parameters": {"expression": "{reviews: length, approved: ([.[] | select(.review_result)] | length)}"}}`}
	var edges []string
	for i := range reviewers {
		reviewers[i] = env.User(t, org, auth.RoleAppUser)
		tasks = append(tasks, fmt.Sprintf(`{"name": "r%02d", "type": "human_review", "parameters": {"assigned_users": [%q]}}`, i, reviewers[i].UserID))
		edges = append(edges, fmt.Sprintf(`{"source": "root", "target": "r%02d"}, {"source": "r%02d", "target": "join"}`, i, i))
	}
	flow := testkit.NewFlow(t, owner, `{"version": 1, "tasks": [`+strings.Join(tasks, ",")+`], "edges": [`+strings.Join(edges, ",")+`]}`)
	exec := run(t, env, owner, flow, 1)
	var list *platformapi.ListHumanReviewTasksResponse
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		list, err = owner.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: &exec, Limit: new(100)})
		testkit.Expect(t, list, err, http.StatusOK)
		if len(list.JSON200.HumanReviewTasks) == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reviews open, want %d", len(list.JSON200.HumanReviewTasks), n)
		}
	}
	reviews := map[string]platformapi.HumanReviewTaskResponse{}
	for _, r := range list.JSON200.HumanReviewTasks {
		reviews[r.TargetTaskName] = r
	}

	codes := make([]int, n+2)
	var wg sync.WaitGroup
	send := func(slot int, c *testkit.Caller, task string, approve bool) {
		defer wg.Done()
		res, err := c.API.CompleteHumanReviewTaskWithResponse(ctx, reviews[task].Id,
			platformapi.HumanReviewTaskCompleteRequest{ReviewResult: approve, ReviewedOutput: map[string]any{"by": task}})
		if err != nil {
			t.Error(err)
			return
		}
		codes[slot] = res.StatusCode()
	}
	wg.Add(n + 2)
	for i, c := range reviewers {
		go send(i, c, fmt.Sprintf("r%02d", i), i%2 == 0)
	}
	go send(n, reviewers[3], "r03", false)
	go send(n+1, stranger, "r05", true)
	wg.Wait()

	for i := 0; i < n; i++ {
		if i != 3 && codes[i] != http.StatusOK {
			t.Errorf("reviewer %d: %d, want 200", i, codes[i])
		}
	}
	if twice := []int{codes[3], codes[n]}; !(twice[0] == 200 && twice[1] == 409 || twice[0] == 409 && twice[1] == 200) {
		t.Errorf("the review sent twice was answered %v, want one 200 and one 409", twice)
	}
	if codes[n+1] != http.StatusNotFound {
		t.Errorf("the stranger: %d, want 404", codes[n+1])
	}
	testkit.WaitForExecution(t, owner, exec, platformapi.ExecutionStatusCompleted)
	if out := output(t, env, exec); out["reviews"] != float64(n) || out["approved"] != float64(n/2) {
		var rows []string
		_ = env.DB.Select(&rows, `SELECT task_name || ' ' || task_execution_idx || ' ' || status || ' ' || coalesce(input::text, '') || ' ' || coalesce(completed_at::text, '') FROM task_executions WHERE flow_execution_id = $1 ORDER BY completed_at, task_name`, exec)
		t.Log(strings.Join(rows, "\n"))
		t.Fatalf("the join's output %v", out)
	}
	for i, c := range reviewers {
		r := reviewOf1(t, c, reviews[fmt.Sprintf("r%02d", i)].Id)
		if r.Status != platformapi.HumanReviewTaskStatusCompleted || r.CompletedBy == nil || *r.CompletedBy != c.UserID ||
			*r.ReviewResult != (i%2 == 0) {
			t.Errorf("review %d: %+v", i, r)
		}
	}
	var attempts int
	if err := env.DB.Get(&attempts, `SELECT count(*) FROM task_executions WHERE flow_execution_id = $1 AND task_name = 'join'`, exec); err != nil {
		t.Fatal(err)
	}
	if attempts != 1 {
		t.Fatalf("the join ran %d times", attempts)
	}
}

// reviewOf1 is one review as c reads it.
func reviewOf1(t *testing.T, c *testkit.Caller, id uuid.UUID) platformapi.HumanReviewTaskResponse {
	t.Helper()
	res, err := c.API.GetHumanReviewTaskWithResponse(ctx, id)
	testkit.Expect(t, res, err, http.StatusOK)
	return *res.JSON200
}
