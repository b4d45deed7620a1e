package taskexecutions_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExpiredLeaseIsClaimedAgain: an attempt under a valid lease is not offered; once the lease expires
// the next claim takes the same attempt, with its started_at, under a new lease.
func TestExpiredLeaseIsClaimedAgain(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := start(t, env, user, testkit.NewFlow(t, user, externalDef), map[string]any{})

	first := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "gone", LeaseSeconds: new(5)})
	if first == nil || first.TaskExecution.FlowExecutionId != exec {
		t.Fatalf("first claim %+v", first)
	}
	if c := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "next"}); c != nil {
		t.Fatalf("an attempt under a valid lease was claimed: %+v", c)
	}
	// The worker vanished: its lease ran out.
	if _, err := env.DB.Exec(`UPDATE task_executions SET timeout_at = now() - interval '1 second' WHERE id = $1`,
		first.TaskExecution.Id); err != nil {
		t.Fatal(err)
	}
	second := claim(t, worker, platformapi.TaskExecutionClaimRequest{Worker: "next"})
	if second == nil || second.TaskExecution.Id != first.TaskExecution.Id || second.TaskExecution.TaskExecutionIdx != 0 ||
		!second.TaskExecution.StartedAt.Equal(*first.TaskExecution.StartedAt) || !second.LeaseExpiresAt.After(first.LeaseExpiresAt) {
		t.Fatalf("re-claim %+v after %+v", second, first)
	}
	if n := len(list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec})); n != 1 {
		t.Fatalf("%d attempts, want the one attempt claimed twice", n)
	}
}

// TestConcurrentClaimsNeverShare: eight workers claiming twenty attempts of one execution take each
// attempt exactly once.
func TestConcurrentClaimsNeverShare(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	const attempts, workers = 20, 8
	var tasks []string
	for i := range attempts {
		tasks = append(tasks, fmt.Sprintf(`{"name": "e%02d", "type": "external"}`, i))
	}
	exec := start(t, env, user, testkit.NewFlow(t, user, `{"version": 1, "tasks": [`+strings.Join(tasks, ",")+`], "edges": []}`), map[string]any{})

	var mu sync.Mutex
	taken := map[uuid.UUID]int{}
	var wg sync.WaitGroup
	callers := make([]*testkit.Caller, workers)
	for i := range callers {
		callers[i] = env.KeyCaller(t, org, auth.RoleIntegration)
	}
	errs := make(chan error, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				res, err := callers[i].API.ClaimTaskExecutionWithResponse(ctx, platformapi.TaskExecutionClaimRequest{Worker: fmt.Sprint("w", i)})
				if err != nil {
					errs <- err
					return
				}
				if res.StatusCode() == 204 {
					return
				}
				if res.JSON200 == nil {
					errs <- fmt.Errorf("claim answered %d: %s", res.StatusCode(), res.Body)
					return
				}
				mu.Lock()
				taken[res.JSON200.TaskExecution.Id]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(taken) != attempts {
		t.Fatalf("%d distinct attempts claimed, want %d", len(taken), attempts)
	}
	for id, n := range taken {
		if n != 1 {
			t.Fatalf("attempt %s was claimed %d times", id, n)
		}
	}
	for _, a := range list(t, user, platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec}) {
		if a.Status != platformapi.TaskExecutionStatusRunning {
			t.Fatalf("%s is %s after its claim", a.TaskName, a.Status)
		}
	}
}
