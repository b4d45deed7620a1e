package executions_test

import (
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestRunNumbersTakenInBlocks: numbers taken before a start's transaction are distinct under
// concurrency and grow in the order they are taken; an /api start, which takes its number during its
// transaction once it is sure to start, comes next after every number handed out; and a flow started
// now and then takes one number at a time, so a pause leaves no gap behind.
func TestRunNumbersTakenInBlocks(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)

	const takers, each = 8, 25
	var mu sync.Mutex
	var all []int
	var wg sync.WaitGroup
	for range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for range each {
				n, err := run.TakeRunNumber(ctx, env.DB, flow)
				if err != nil {
					t.Error(err)
					return
				}
				if n <= last {
					t.Errorf("took %d after %d", n, last)
				}
				last = n
				mu.Lock()
				all = append(all, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Ints(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("run number %d taken twice", all[i])
		}
	}
	var counter int
	if err := env.DB.Get(&counter, `SELECT executions_started FROM flows WHERE id = $1`, flow); err != nil {
		t.Fatal(err)
	}
	if len(all) != takers*each || all[0] != 1 || all[len(all)-1] > counter {
		t.Fatalf("took %d numbers from %d to %d with the counter at %d", len(all), all[0], all[len(all)-1], counter)
	}
	x := start(t, user, flow, map[string]any{}).Id
	if n := runNumber(t, user, x); n != all[len(all)-1]+1 {
		t.Fatalf("an /api start after the blocks got %d; want %d, the next after the last one taken", n, all[len(all)-1]+1)
	}

	// A pause: the next number is taken alone and follows the last one given.
	quiet := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	first, err := run.TakeRunNumber(ctx, env.DB, quiet)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	second, err := run.TakeRunNumber(ctx, env.DB, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if y := start(t, user, quiet, map[string]any{}).Id; first != 1 || second != 2 || runNumber(t, user, y) != 3 {
		t.Fatalf("a quiet flow was numbered %d, %d, then %d; want 1, 2, 3", first, second, runNumber(t, user, y))
	}
	if n, err := run.TakeRunNumber(ctx, env.DB, uuid.New()); err != nil || n != 0 {
		t.Fatalf("a number of a flow that does not exist: %d, %v", n, err)
	}
}

// TestConcurrentStartsNumbered: more /api starts of one flow at once than the server's pool has
// connections all succeed (each takes its number, during its transaction, on the engine's own pool, so
// none waits for a connection another holds) and are numbered 1 to n without a gap or a repeat.
func TestConcurrentStartsNumbered(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	const n = 48 // the test pool has 20 connections
	// A comfortable balance, so that the starts do not queue on the credits' lock (credits.Reserve)
	// and all reach their numbers together.
	grant(t, env, org, 100_000)
	flow := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := user.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow, Input: map[string]any{}})
			if err != nil {
				t.Error(err)
			} else if res.StatusCode() != http.StatusCreated {
				t.Errorf("start: %d %s", res.StatusCode(), res.Body)
			}
		}()
	}
	wg.Wait()
	var numbers []int
	if err := env.DB.Select(&numbers, `SELECT run_number FROM flow_executions WHERE flow_id = $1 ORDER BY 1`, flow); err != nil {
		t.Fatal(err)
	}
	for i, got := range numbers {
		if got != i+1 {
			t.Fatalf("run numbers of %d starts: %v; want 1 to %d", n, numbers, n)
		}
	}
	if len(numbers) != n {
		t.Fatalf("%d executions, want %d", len(numbers), n)
	}
}

// TestRunNumberCommitStaysLocal: the statement that takes a block commits without waiting for its
// flush, and only it: the connection it ran on is back to synchronous commits for whatever runs next.
func TestRunNumberCommitStaysLocal(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	one, err := dbx.Open(ctx, testkit.DSN(t, env.DB), dbx.PoolOptions{MaxOpenConns: 1, MaxIdleConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	// A value of the session's own, which neither the cluster's default (off in the test clusters) nor
	// the statement's sets, on the pool's one connection.
	if _, err := one.Exec(`SET synchronous_commit = remote_apply`); err != nil {
		t.Fatal(err)
	}
	if n, err := run.TakeRunNumber(ctx, one, flow); err != nil || n != 1 {
		t.Fatalf("took %d, %v", n, err)
	}
	var mode string
	if err := one.Get(&mode, `SHOW synchronous_commit`); err != nil || mode != "remote_apply" {
		t.Fatalf("synchronous_commit after taking a number: %q, %v; want the session's remote_apply", mode, err)
	}
}
